// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rdma-node-agent status} through the shipped start script, against a running agent found the way an
 * operator's shell finds it: the configuration names the state directory, where the agent wrote its URL.
 */
class StatusCommandIT {

    @TempDir
    Path temp;

    @Test
    void rendersARunningAgentAsTablesAndJsonAndSaysWhenItIsGone() throws Exception {
        Path state = temp.resolve("state");
        Path config = temp.resolve("agent.conf");
        Files.writeString(config, """
                agent.runtime { stateDir = "%s", shutdownTimeout = 10s }
                agent.http.port = 0
                deviceplugin.shared.pools = [ { name = nothing_here, selectors { vendors = ["dead"] } } ]
                kubelet { pluginDir = "%s" }
                """.formatted(state, temp.resolve("dp")));
        Files.createDirectories(temp.resolve("dp"));
        Path home = AgentProcessIT.DIST.toAbsolutePath();
        Process process = new ProcessBuilder(home.resolve("bin/rdma-node-agent").toString(), "--config", config.toString())
                .redirectErrorStream(true).redirectOutput(temp.resolve("agent.log").toFile()).start();
        try {
            awaitReady(state);

            Result tables = run(home, "status", "--config", config.toString());
            assertThat(tables.exit).as(tables.out).isZero();
            assertThat(tables.out).startsWith("rdma-node-agent ").contains("  READY\n")
                    .contains("in force: " + config + " revision 1")
                    .containsPattern("shared +rdma/nothing_here +no +no +");

            Result json = run(home, "status", "--config", config.toString(), "--json");
            assertThat(json.exit).isZero();
            assertThat(JsonParser.parseString(json.out).getAsJsonObject().get("ready").getAsBoolean()).isTrue();
        } finally {
            process.destroy();
            assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(process.exitValue()).isZero();

        Result gone = run(home, "status", "--url", "http://127.0.0.1:1");
        assertThat(gone.exit).isEqualTo(5);
        assertThat(gone.err).contains("agent not reachable at http://127.0.0.1:1");

        Result usage = run(home, "status", "--bogus");
        assertThat(usage.exit).isEqualTo(2);
        assertThat(usage.err).contains("unknown option '--bogus'").contains("usage: rdma-node-agent status");
    }

    private void awaitReady(Path state) throws Exception {
        Path urlFile = state.resolve("http.url");
        try {
            Awaitility.await("agent ready").atMost(Duration.ofSeconds(60)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(50)).until(() -> Files.isRegularFile(urlFile)
                            && AgentProcess.status(Files.readString(urlFile).trim() + "/readyz") == 200);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("agent not ready:\n" + Files.readString(temp.resolve("agent.log")), e);
        }
    }

    private record Result(int exit, String out, String err) {
    }

    private Result run(Path home, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/rdma-node-agent").toString()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(temp, "out", ".txt");
        Path err = Files.createTempFile(temp, "err", ".txt");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
