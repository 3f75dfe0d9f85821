// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A bundle the operator disabled while its section stays in the file ({@code cni { ... }} with
 * {@code agent.bundles.cni.enabled = false}): the components of other bundles that use its services wait for it,
 * and the agent is still ready; {@code /status} says what they wait for and why.
 */
class DisabledBundleIT {

    @TempDir
    Path temp;

    @Test
    void theAgentIsReadyWithTheCniBundleDisabledAndItsSectionKept() throws Exception {
        Path config = temp.resolve("demo.conf");
        Files.writeString(config, Files.readString(AgentProcessIT.DIST.resolve("config/demo.conf"))
                + "\nagent.bundles.cni.enabled = false\n");

        try (AgentProcess agent = AgentProcess.start(AgentProcessIT.DIST, temp.resolve("unused"),
                Map.of("RDMA_AGENT_HTTP_PORT", "0"), "--demo", "--config", config.toString())) {
            AgentProcess.DemoBanner demo = agent.awaitDemoBanner(Duration.ofSeconds(60));

            assertThat(AgentProcess.status(demo.base() + "/startedz")).isEqualTo(200);
            assertThat(AgentProcess.get(demo.base() + "/status").body())
                    .contains("provided by cni, which is disabled (agent.bundles.cni.enabled = false)");
            assertThat(agent.terminate(Duration.ofSeconds(15))).isZero();
        }
    }
}
