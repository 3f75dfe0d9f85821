// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 20: the start script reads the state directory (where the class-data archive goes) from the launcher
 * ({@code --print-setting agent.runtime.stateDir}), resolved as the agent resolves it, not by searching the
 * file's text: a later section's {@code stateDir} ({@code cni.stateDir}) and the shipped override idiom
 * ({@code stateDir = ${?STATE_DIRECTORY}}) used to mislead it.
 */
class StartScriptSettingsIT {

    @TempDir
    Path temp;

    @Test
    void theClassDataArchiveGoesToTheAgentsStateDirNotTheCniOne() throws Exception {
        Path home = temp.resolve("rdma-node-agent");
        AgentProcessIT.copyTree(AgentProcessIT.DIST, home);
        hidePackagedArchives(home);
        Path state = temp.resolve("state");
        Path cniState = temp.resolve("cni-state");
        Path config = temp.resolve("agent.conf");
        Files.writeString(config, """
                agent {
                  runtime {
                    stateDir = "%s"
                    stateDir = ${?STATE_DIRECTORY}
                  }
                  http.port = 0
                }
                cni {
                  binDir = "%s"
                  socket = "%s"
                  stateDir = "%s"
                }
                """.formatted(temp.resolve("overridden"), temp.resolve("bin"), temp.resolve("cni.sock"), cniState));
        Map<String, String> env = new HashMap<>();
        env.put("RDMA_AGENT_CDS_DIR", null); // the script's own choice: <stateDir>/cds
        env.put("STATE_DIRECTORY", state.toString());

        try (AgentProcess agent = AgentProcess.start(home, state, env, "--config", config.toString())) {
            String base = agent.awaitStarted(Duration.ofSeconds(60));
            String cds = AgentProcess.json(base + "/status").getAsJsonObject("agent").get("cds").getAsString();

            assertThat(cds).startsWith("none: making " + state.resolve("cds").resolve("agent-"));
            assertThat(agent.terminate(Duration.ofSeconds(15))).isZero();
        }
        assertThat(cniState.resolve("cds")).doesNotExist();
        assertThat(temp.resolve("overridden")).doesNotExist();
    }

    @Test
    void theScriptPassesPrintSettingThroughAndAnUnknownKeyFails() throws Exception {
        Path config = temp.resolve("agent.conf");
        Files.writeString(config, """
                agent.runtime.stateDir = "/srv/agent"
                cni.stateDir = "/srv/cni"
                """);

        Run ok = run(AgentProcessIT.DIST.resolve("bin/rdma-node-agent").toString(), "--print-setting",
                "agent.runtime.stateDir", "--config", config.toString());
        Run unknown = run(AgentProcessIT.DIST.resolve("bin/rdma-node-agent").toString(), "--print-setting",
                "stateDir", "--config", config.toString());

        assertThat(ok.exit()).as(ok.output()).isZero();
        assertThat(ok.output()).endsWith("/srv/agent\n");
        assertThat(unknown.exit()).isEqualTo(1);
        assertThat(unknown.output()).contains("no setting 'stateDir'", "agent.runtime.stateDir or cni.stateDir");
    }

    private record Run(int exit, String output) {
    }

    private static Run run(String... command) throws Exception {
        Process p = new ProcessBuilder(List.of(command)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Run(p.waitFor(), out);
    }

    /** As on a node whose JDK is not the build's: no packaged archive applies, the script picks a directory. */
    private static void hidePackagedArchives(Path home) throws Exception {
        Path packaged = home.resolve("lib/cds");
        if (!Files.isDirectory(packaged)) {
            return;
        }
        try (Stream<Path> archives = Files.list(packaged)) {
            for (Path archive : archives.filter(a -> a.toString().endsWith(".aot") || a.toString().endsWith(".jsa"))
                    .toList()) {
                String ext = archive.toString().endsWith(".aot") ? "aot" : "jsa";
                Files.move(archive, packaged.resolve("agent-17.0.0-other-build." + ext));
            }
        }
    }
}
