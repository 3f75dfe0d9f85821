// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/** Real network namespaces with unique names, ip(8) and running a CNI plugin exactly as a runtime does. */
final class Netns {

    record Exec(int exit, String stdout) {
    }

    static String unique(String prefix) {
        return prefix + ProcessHandle.current().pid() + "-" + Integer.toHexString(ThreadLocalRandom.current().nextInt(1 << 16));
    }

    static Path path(String name) {
        return Path.of("/var/run/netns", name);
    }

    static int ip(String... args) throws IOException, InterruptedException {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "ip";
        System.arraycopy(args, 0, cmd, 1, args.length);
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start().waitFor();
    }

    /** Execs {@code plugin} with a clean environment plus {@code env}, the config on stdin; stdout captured. */
    static Exec exec(Path plugin, Map<String, String> env, String stdin) throws IOException, InterruptedException {
        return run(new ProcessBuilder(plugin.toString()), env, stdin);
    }

    /**
     * As {@link #exec}, after {@code script} (bash, e.g. {@code export CNI_IFNAME=$'n\xc3\xa9t1'}): for
     * environment values given as bytes, which a Java string would pass through the test JVM's locale.
     */
    static Exec execScript(Path plugin, Map<String, String> env, String script, String stdin)
            throws IOException, InterruptedException {
        return run(new ProcessBuilder("bash", "-c", script + "; exec \"$0\"", plugin.toString()), env, stdin);
    }

    private static Exec run(ProcessBuilder pb, Map<String, String> env, String stdin)
            throws IOException, InterruptedException {
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        pb.environment().putAll(env);
        pb.redirectError(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        try (var in = p.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            // the plugin stopped reading (it refused an oversize stdin): its answer says so
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Exec(p.waitFor(), out);
    }
}
