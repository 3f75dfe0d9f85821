// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The config bundle's own series: the names and labels the metrics bundle served from {@code /status} before. */
class ConfigCollectorTest {

    @Test
    void servesReloadsByResultFromTheHistory() throws IOException {
        ConfigHistory history = new ConfigHistory("/etc/rdma-node-agent/agent.conf");
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new ConfigCollector(history::appliedCount, history::rejectedCount));
        assertThat(scrape(registry)).contains("rdma_agent_config_reloads_total{result=\"applied\"} 0.0\n",
                "rdma_agent_config_reloads_total{result=\"rejected\"} 0.0\n");

        history.applied(new ConfigHistory.Applied(1, "sha", Instant.now(), 3, List.of(), List.of(), List.of(),
                List.of()), Map.of(), false);
        history.rejected(new ConfigHistory.Rejected(2, "sha2", Instant.now(), List.of("bad key")));
        history.rejected(new ConfigHistory.Rejected(3, "sha3", Instant.now(), List.of("bad key")));
        assertThat(scrape(registry)).contains(
                "# TYPE rdma_agent_config_reloads_total counter\n",
                "rdma_agent_config_reloads_total{result=\"applied\"} 1.0\n",
                "rdma_agent_config_reloads_total{result=\"rejected\"} 2.0\n");
    }

    private static String scrape(PrometheusRegistry registry) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        return out.toString(StandardCharsets.UTF_8);
    }
}
