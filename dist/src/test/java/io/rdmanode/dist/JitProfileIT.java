// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The start script's JIT profiles (RDMA_AGENT_JIT): C1 only by default, tiered C2 on request, nothing else. */
class JitProfileIT {

    static final Path DIST = Path.of(System.getProperty("dist.dir", "target/rdma-node-agent"));

    @TempDir
    Path temp;

    private Path home;

    @BeforeEach
    void copyDistribution() throws IOException {
        home = temp.resolve("rdma-node-agent");
        AgentProcessIT.copyTree(DIST, home);
    }

    @Test
    void c1_only_by_default_with_capped_malloc_arenas() throws Exception {
        try (AgentProcess agent = AgentProcess.start(home, temp.resolve("state"), Map.of(), "--config", config())) {
            agent.awaitStarted(Duration.ofSeconds(60));
            assertThat(commandLine(agent)).contains("-XX:TieredStopAtLevel=1").doesNotContain("TieredStopAtLevel=4");
            String env = Files.readString(Path.of("/proc/" + agent.pid() + "/environ"), StandardCharsets.ISO_8859_1);
            assertThat(env.split("\0")).contains("MALLOC_ARENA_MAX=2");
        }
    }

    @Test
    void c2_runs_tiered_with_capped_malloc_arenas() throws Exception {
        try (AgentProcess agent = AgentProcess.start(home, temp.resolve("state"), Map.of("RDMA_AGENT_JIT", "c2"),
                "--config", config())) {
            agent.awaitStarted(Duration.ofSeconds(60));
            String cmd = commandLine(agent);
            assertThat(cmd).contains("-XX:TieredStopAtLevel=4", "-XX:CICompilerCount=2")
                    .doesNotContain("TieredStopAtLevel=1");
            String env = Files.readString(Path.of("/proc/" + agent.pid() + "/environ"), StandardCharsets.ISO_8859_1);
            assertThat(env.split("\0")).contains("MALLOC_ARENA_MAX=2");
        }
    }

    @Test
    void an_unknown_profile_is_refused_before_the_jvm_starts() throws Exception {
        ProcessBuilder b = new ProcessBuilder(home.resolve("bin/rdma-node-agent").toString(), "--version")
                .redirectErrorStream(true);
        b.environment().put("RDMA_AGENT_JIT", "c3");
        Process p = b.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isEqualTo(2);
        assertThat(out).contains("RDMA_AGENT_JIT must be c1 or c2, not 'c3'");
    }

    private String config() throws IOException {
        Path c = temp.resolve("agent.conf");
        Files.writeString(c, """
                agent {
                  runtime { stateDir = "%s", shutdownTimeout = 10s }
                  http.port = 0
                }
                """.formatted(temp.resolve("state")));
        return c.toString();
    }

    private static String commandLine(AgentProcess agent) throws IOException {
        return new String(Files.readAllBytes(Path.of("/proc/" + agent.pid() + "/cmdline")), StandardCharsets.UTF_8)
                .replace('\0', ' ');
    }
}
