// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonParser;
import io.rdmanode.kubelet.testing.KubeletDouble;
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

    /**
     * Issue 27, readiness means registered: {@code status} exits 1 and says why while kubelet is absent (after
     * auto registration found nobody watching an existing plugins_registry and fell back to kubelet.sock) and
     * while kubelet refuses a pool; it exits 0 once every pool is registered, a pool matching no device included.
     */
    @Test
    void rendersARunningAgentAndExitsNonZeroUntilEveryPoolIsRegisteredWithKubelet() throws Exception {
        Path state = temp.resolve("state");
        Path config = temp.resolve("agent.conf");
        Path dp = Files.createDirectories(temp.resolve("dp"));
        Path unwatched = Files.createDirectories(temp.resolve("plugins_registry"));
        Files.writeString(config, """
                agent.runtime { stateDir = "%s", shutdownTimeout = 10s }
                agent.http.port = 0
                deviceplugin.shared.pools = [
                  { name = nothing_here, selectors { vendors = ["dead"] } }
                  { name = second, selectors { vendors = ["beef"] } }
                ]
                kubelet { pluginDir = "%s", registration = auto, pluginsRegistryDir = "%s", getInfoDeadline = 500ms,
                          resyncInterval = 300ms }
                """.formatted(state, dp, unwatched));
        Path home = AgentProcessIT.DIST.toAbsolutePath();
        Process process = new ProcessBuilder(home.resolve("bin/rdma-node-agent").toString(), "--config", config.toString())
                .redirectErrorStream(true).redirectOutput(temp.resolve("agent.log").toFile()).start();
        try {
            String base = await(state, "/startedz", "");
            await(state, "/readyz", dp.resolve("kubelet.sock") + " absent");

            Result waiting = run(home, "status", "--config", config.toString());
            assertThat(waiting.exit).as(waiting.out).isEqualTo(1);
            assertThat(waiting.out).contains("NOT READY (started; waiting for kubelet)")
                    .contains("waiting for kubelet: " + dp.resolve("kubelet.sock") + " absent")
                    .contains("in force: " + config + " revision 1")
                    .containsPattern("shared +rdma/nothing_here +no +no +");
            assertThat(AgentProcess.json(base + "/status").getAsJsonObject("kubelet").get("registration")
                    .getAsString()).isEqualTo("auto → classic: no GetInfo within 500ms");
            assertThat(Files.readString(temp.resolve("agent.log")))
                    .contains("registration=auto → classic: no GetInfo within 500ms: no kubelet watches " + unwatched);

            try (KubeletDouble kubelet = KubeletDouble.start(dp)) {
                kubelet.refuse("rdma/second", "resource rdma/second is claimed by another plugin");
                kubelet.awaitRegistrations("rdma/nothing_here", 1, Duration.ofSeconds(30));
                await(state, "/readyz", "not registered with kubelet: rdma/second");

                Result refused = run(home, "status", "--config", config.toString());
                assertThat(refused.exit).as(refused.out).isEqualTo(1);
                assertThat(refused.out).contains("NOT READY").contains("rdma/second")
                        .contains("claimed by another plugin").doesNotContain("waiting for kubelet");

                kubelet.accept("rdma/second");
                await(state, "/readyz", null);

                Result tables = run(home, "status", "--config", config.toString());
                assertThat(tables.exit).as(tables.out).isZero();
                // The pool that matches nothing is unhealthy but registered, and does not hold readiness back.
                assertThat(tables.out).startsWith("rdma-node-agent ").contains("  READY\n")
                        .containsPattern("shared +rdma/nothing_here +no +yes +");

                Result json = run(home, "status", "--config", config.toString(), "--json");
                assertThat(json.exit).isZero();
                assertThat(JsonParser.parseString(json.out).getAsJsonObject().get("ready").getAsBoolean()).isTrue();
            }
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

    /**
     * Waits until {@code path} answers 200 ({@code text} null) or its body contains {@code text} ({@code ""}: any
     * answer of 200); returns the base URL.
     */
    private String await(Path state, String path, String text) throws Exception {
        Path urlFile = state.resolve("http.url");
        try {
            Awaitility.await(path + " " + text).atMost(Duration.ofSeconds(60)).pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(50)).until(() -> {
                        if (!Files.isRegularFile(urlFile)) {
                            return false;
                        }
                        var response = AgentProcess.get(Files.readString(urlFile).trim() + path);
                        return text == null || text.isEmpty() ? response.statusCode() == 200
                                : response.body().contains(text);
                    });
            return Files.readString(urlFile).trim();
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(path + " never said '" + text + "':\n" + Files.readString(temp.resolve("agent.log")), e);
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
