// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code rdma-node-agent takeover [--config PATH] [--timeout SECONDS] [--predecessor PID]}: a restart that no
 * client notices (issue 27), the command a systemd unit's {@code ExecReload=} runs. Starts a successor, the
 * shipped start script with the same configuration, detached (its own session: it outlives this command), and
 * waits until it serves; the successor takes the listening sockets and the state directory from the running
 * instance (the launcher's {@code Handover}) and, under systemd, sends {@code MAINPID=<its pid>} and
 * {@code READY=1} so that the unit follows it. Then the predecessor ({@code --predecessor}, else systemd's
 * {@code $MAINPID} of the reload) gets SIGTERM: it has handed everything over, finishes its calls in flight and
 * its Freeflow drain, and exits 0 without removing what the successor owns.
 *
 * <p>Exit 0 once the successor serves. When the successor exits or does not serve within the timeout (it is
 * stopped then), the command fails (1) and the predecessor serves on untouched: {@code systemctl reload} reports
 * the failure and nothing changed.
 */
final class TakeoverCommand {

    static final String USAGE = """
            usage: rdma-node-agent takeover [--config PATH] [--timeout SECONDS] [--predecessor PID]
              starts a successor with the same configuration, waits until it serves (default 60 s), then
              sends SIGTERM to the predecessor (--predecessor, else $MAINPID as systemd sets it for ExecReload)
            """;

    private final PrintStream out;
    private final PrintStream err;
    private final Map<String, String> env;

    TakeoverCommand(PrintStream out, PrintStream err, Map<String, String> env) {
        this.out = out;
        this.err = err;
        this.env = env;
    }

    int run(Path home, String[] args) {
        List<String> agentArgs = new ArrayList<>();
        Duration timeout = Duration.ofSeconds(60);
        Optional<Long> predecessor = parsePid(env.getOrDefault("MAINPID", ""));
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--help", "-h" -> {
                        out.print(USAGE);
                        return ExitCode.OK.code;
                    }
                    case "--config" -> {
                        agentArgs.add("--config");
                        agentArgs.add(value(args, ++i));
                    }
                    case "--timeout" -> timeout = Duration.ofSeconds(Long.parseLong(value(args, ++i)));
                    case "--predecessor" -> predecessor = Optional.of(parsePid(value(args, ++i)).orElseThrow(
                            () -> new IllegalArgumentException("--predecessor needs a process ID")));
                    default -> throw new IllegalArgumentException("unknown option " + args[i]);
                }
            }
        } catch (IllegalArgumentException e) {
            err.println("rdma-node-agent takeover: " + e.getMessage());
            err.print(USAGE);
            return ExitCode.USAGE.code;
        }
        List<String> command = new ArrayList<>();
        ReadyNotice.onPath("setsid", env.get("PATH")).ifPresent(setsid -> command.add(setsid.toString()));
        command.add(home.resolve("bin/rdma-node-agent").toString());
        command.addAll(agentArgs);
        return takeOver(command, timeout, predecessor);
    }

    /** Starts {@code command} as the successor, waits until it serves, then stops {@code predecessor}. */
    int takeOver(List<String> command, Duration timeout, Optional<Long> predecessor) {
        Path readyFile;
        Process successor;
        try {
            readyFile = Files.createTempFile("rdma-node-agent-takeover-", ".ready");
            Files.delete(readyFile);                      // the successor creates it when it serves
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(ProcessBuilder.Redirect.INHERIT)   // the unit's journal, as the predecessor's
                    .redirectError(ProcessBuilder.Redirect.INHERIT);
            builder.environment().put(ReadyNotice.READY_FILE_ENV, readyFile.toString());
            builder.environment().remove("MAINPID");      // the predecessor's, not the successor's
            successor = builder.start();
        } catch (IOException e) {
            err.println("rdma-node-agent takeover: cannot start the successor " + command + ": " + e.getMessage());
            return ExitCode.FAILURE.code;
        }
        long started = System.nanoTime();
        long deadline = started + timeout.toNanos();
        try {
            while (true) {
                Optional<Long> serving = readPid(readyFile);
                if (serving.isPresent()) {
                    out.println("rdma-node-agent takeover: successor pid " + serving.get() + " serves after "
                            + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
                    Files.deleteIfExists(readyFile);
                    predecessor.filter(pid -> pid != serving.get() && pid != successor.pid())
                            .flatMap(ProcessHandle::of).ifPresent(p -> {
                                out.println("rdma-node-agent takeover: SIGTERM to the predecessor pid " + p.pid());
                                p.destroy();
                            });
                    return ExitCode.OK.code;
                }
                if (!successor.isAlive()) {
                    err.println("rdma-node-agent takeover: the successor exited with " + successor.exitValue()
                            + " before it served; the running instance serves on (see its log for why)");
                    return ExitCode.FAILURE.code;
                }
                if (System.nanoTime() > deadline) {
                    err.println("rdma-node-agent takeover: the successor pid " + successor.pid() + " did not serve"
                            + " within " + timeout.toSeconds() + " s; stopping it, the running instance serves on");
                    successor.toHandle().descendants().forEach(ProcessHandle::destroy);
                    successor.destroy();
                    return ExitCode.FAILURE.code;
                }
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCode.FAILURE.code;
        } catch (IOException e) {
            err.println("rdma-node-agent takeover: " + e.getMessage());
            return ExitCode.FAILURE.code;
        }
    }

    private static Optional<Long> readPid(Path file) {
        try {
            return parsePid(Files.readString(file, StandardCharsets.US_ASCII).trim());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static Optional<Long> parsePid(String text) {
        try {
            long pid = Long.parseLong(text.trim());
            return pid > 0 ? Optional.of(pid) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value");
        }
        return args[i];
    }
}
