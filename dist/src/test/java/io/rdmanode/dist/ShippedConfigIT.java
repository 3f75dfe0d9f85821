// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The configurations the distribution ships, as a user gets them, are accepted by the agent as a whole, with
 * no problem and no warning: the documented defaults in {@code config/agent.conf} and the DaemonSet's
 * ConfigMap. Only what would touch this machine's real paths is pointed into a temporary directory.
 */
class ShippedConfigIT {

    static final Path DIST = Path.of(System.getProperty("dist.dir", "target/rdma-node-agent"));

    @TempDir
    Path temp;

    @ParameterizedTest
    @ValueSource(strings = {"config/agent.conf", "kubernetes/daemonset.yaml"})
    void shippedConfigurationIsAppliedWithoutProblems(String shipped) throws Exception {
        String hocon = shipped.endsWith(".yaml") ? configMapEntry(DIST.resolve(shipped), "agent.conf")
                : Files.readString(DIST.resolve(shipped));
        Path state = temp.resolve("state");
        Path config = temp.resolve("agent.conf");
        Files.writeString(config, hocon + """

                # test overrides: nothing of this machine is touched
                agent.runtime.stateDir = "%s"
                agent.http.port = 0
                kubelet { pluginDir = "%s", registration = classic }
                cni { binDir = "%s", socket = "%s", stateDir = "%s" }
                """.formatted(state, temp.resolve("device-plugins"), temp.resolve("cni-bin"), temp.resolve("cni.sock"),
                temp.resolve("cni-state")));
        Files.createDirectories(temp.resolve("device-plugins"));

        try (AgentProcess agent = AgentProcess.start(DIST, state, Map.of(), "--config", config.toString())) {
            String base = agent.awaitStarted(Duration.ofSeconds(60));
            JsonObject status = AgentProcess.json(base + "/status").getAsJsonObject("config");

            assertThat(status.get("state").getAsString()).as("%s", status).isEqualTo("applied");
            assertThat(status.get("lastRejected").isJsonNull()).as("%s", status).isTrue();
            assertThat(status.getAsJsonObject("lastApplied").getAsJsonArray("warnings")).as("%s", status).isEmpty();
            assertThat(agent.terminate(Duration.ofSeconds(15))).isZero();
        }
    }

    /** The block-scalar value of {@code key} in the ConfigMap of a manifest (indentation-delimited). */
    static String configMapEntry(Path manifest, String key) throws IOException {
        List<String> lines = Files.readAllLines(manifest);
        int start = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).trim().equals(key + ": |")) {
                start = i + 1;
                break;
            }
        }
        assertThat(start).as("%s has a ConfigMap entry %s", manifest, key).isPositive();
        int indent = lines.get(start).length() - lines.get(start).stripLeading().length();
        return lines.subList(start, lines.size()).stream()
                .takeWhile(l -> l.isBlank() || l.length() - l.stripLeading().length() >= indent)
                .map(l -> l.isBlank() ? "" : l.substring(indent))
                .collect(Collectors.joining("\n"));
    }
}
