// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A subcommand on the command line ({@code rdma-node-agent status ...}) instead of starting the agent. The
 * start script puts {@code --home DIR} first; the subcommand's own options follow its name.
 *
 * @param name the subcommand
 * @param home the distribution directory
 * @param args the options after the subcommand's name
 */
record Subcommand(String name, Path home, String[] args) {

    static final List<String> NAMES = List.of("status", "check-config", "takeover");

    static Optional<Subcommand> find(String[] args, Path defaultHome) {
        Path home = defaultHome;
        List<String> before = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--home") && i + 1 < args.length) {
                home = Path.of(args[++i]);
            } else if (NAMES.contains(args[i]) && before.isEmpty()) {
                return Optional.of(new Subcommand(args[i], home.toAbsolutePath().normalize(),
                        Arrays.copyOfRange(args, i + 1, args.length)));
            } else {
                before.add(args[i]);
            }
        }
        return Optional.empty();
    }

    int run() {
        return switch (name) {
            case "status" -> new StatusCommand(System.out, System.err).run(home, args);
            case "check-config" -> new CheckConfigCommand(System.out, System.err).run(home, args);
            case "takeover" -> new TakeoverCommand(System.out, System.err, System.getenv()).run(home, args);
            default -> throw new IllegalStateException("no subcommand " + name);
        };
    }
}
