// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22: the demo shows every bundle on the demo host, and its banner says how to try each: the test does what
 * the banner says, through each bundle's real entry point (the installed {@code rdma} executable, the Freeflow
 * router's socket, {@code /metrics}, the device-plugin sockets), then stops the demo and finds nothing left.
 */
class DemoIT {

    @TempDir
    Path temp;

    @Test
    void everyBundleAnswersTheWayTheBannerSays() throws Exception {
        Path home = temp.resolve("rdma-node-agent");
        AgentProcessIT.copyTree(AgentProcessIT.DIST, home);
        Path cache = temp.resolve("cache");
        Path tmp = Files.createDirectories(temp.resolve("tmp"));
        Path demoState;
        try (AgentProcess agent = AgentProcess.start(home, temp.resolve("unused"),
                Map.of("RDMA_AGENT_HTTP_PORT", "0", "XDG_CACHE_HOME", cache.toString(), "TMPDIR", tmp.toString()),
                "--demo")) {
            AgentProcess.DemoBanner demo = agent.awaitDemoBanner(Duration.ofSeconds(60));
            demoState = demo.stateDir();
            String banner = agent.output();

            // SIGHUP (a closed terminal, an operator expecting a reload) stops nothing. It is logged, unless HUP was
            // ignored already when the agent started (a test run under nohup: the JVM then leaves it ignored).
            assertThat(new ProcessBuilder("kill", "-HUP", Long.toString(agent.pid())).start().waitFor()).isZero();
            // SIGUSR1 (what log-rotation scripts send) ended the JVM at once, with no stop: exit 138.
            assertThat(new ProcessBuilder("kill", "-USR1", Long.toString(agent.pid())).start().waitFor()).isZero();
            Thread.sleep(2_000);
            assertThat(agent.alive()).as("alive after SIGHUP and SIGUSR1").isTrue();
            assertThat(AgentProcess.status(demo.base() + "/healthz")).isEqualTo(200);

            // metrics: the recorded host's port series.
            assertThat(banner).contains("curl -s " + demo.base() + "/metrics");
            assertThat(AgentProcess.get(demo.base() + "/metrics").body()).contains("rdma_agent_infiniband_state_id{");

            // device plugins: one socket per pool, waiting for a kubelet.
            assertThat(banner).contains("device plugins: sockets in " + demoState.resolve("device-plugins"));
            try (var sockets = Files.list(demoState.resolve("device-plugins"))) {
                assertThat(sockets.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".sock")))
                        .hasSize(4);
            }

            // cni: the printed command, run as printed; an ADD gets an error object with its reason, not a hang.
            Matcher cni = Pattern.compile("cni: +(echo .*? \\S+/rdma) ").matcher(banner);
            assertThat(cni.find()).as(banner).isTrue();
            Run version = sh(cni.group(1), Map.of());
            assertThat(version.exit).as(version.output).isZero();
            assertThat(version.output).contains("\"supportedVersions\"");
            Path rdma = demoState.resolve("cni/bin/rdma");
            Run add = sh("echo '{\"cniVersion\":\"1.0.0\",\"name\":\"demo\",\"type\":\"rdma\",\"deviceID\":\"0000:3b:00.2\"}'"
                    + " | " + rdma, Map.of("CNI_COMMAND", "ADD", "CNI_CONTAINERID", "demo1", "CNI_NETNS",
                    "/proc/self/ns/net", "CNI_IFNAME", "net1", "CNI_PATH", rdma.getParent().toString()));
            assertThat(add.exit).as(add.output).isNotZero();
            assertThat(add.output).contains("\"code\"", "\"msg\"");

            // freeflow: the printed client, run as printed: the router answers its ALLOC_PD with a handle; and
            // the same call from here, on the socket the line names.
            Matcher ff = Pattern.compile("freeflow: +(python3 -c '.*?') .*router socket (\\S+);").matcher(banner);
            assertThat(ff.find()).as(banner).isTrue();
            Run client = sh(ff.group(1), Map.of());
            assertThat(client.exit).as(client.output).isZero();
            assertThat(client.output).matches("(?s)ALLOC_PD -> \\d+\\s*");
            assertThat(GenuineFreeflowCall.allocPd(Path.of(ff.group(2)))).isGreaterThanOrEqualTo(0);

            assertThat(agent.terminate(Duration.ofSeconds(15))).isZero();
        }
        assertThat(demoState).doesNotExist();
        // Nothing is left in the temporary directory: the class-data archive goes to the user's cache.
        try (var left = Files.list(tmp)) {
            assertThat(left).isEmpty();
        }
    }

    private record Run(int exit, String output) {
    }

    private static Run sh(String command, Map<String, String> env) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(List.of("sh", "-c", command)).redirectErrorStream(true);
        builder.environment().putAll(env);
        Process p = builder.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("no exit within 30 s: " + out);
        }
        return new Run(p.exitValue(), out);
    }
}
