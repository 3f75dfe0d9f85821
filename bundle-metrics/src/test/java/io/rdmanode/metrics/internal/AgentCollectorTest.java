// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.rdmanode.metrics.internal.AgentFigures.BundleFigure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentCollectorTest {

    private static String scrape(AgentFigures figures) throws IOException {
        return new String(ScrapeHandler.render(PrometheusTextFormatWriter.create(),
                new AgentCollector(figures).collect(), false), StandardCharsets.UTF_8);
    }

    @Test
    void reportsBundleStatesAndConfigReloadsButLeavesDiscoveryToItsOwnCollector() throws IOException {
        String text = scrape(new FixedFigures(
                List.of(new BundleFigure("config", "io.rdmanode.config", "0.1.0.SNAPSHOT", "active"),
                        new BundleFigure("discovery", "io.rdmanode.discovery", "0.1.0.SNAPSHOT", "resolved")),
                Map.of("config", Map.of("state", "applied", "reloads", Map.of("applied", 3L, "rejected", 1L)),
                        "discovery", Map.of("revision", 7L, "devices", List.of(Map.of(), Map.of()),
                                "problems", List.of("cannot read x"), "kernelEvents", 12L,
                                "scans", Map.of("full", 2L, "incremental", 9L, "failed", 0L)))));
        assertThat(text).contains("rdma_agent_bundle_active{bundle=\"config\"} 1.0\n",
                "rdma_agent_bundle_active{bundle=\"discovery\"} 0.0\n",
                "rdma_agent_bundle_info{bundle=\"discovery\",state=\"resolved\",symbolic_name=\"io.rdmanode.discovery\","
                        + "version=\"0.1.0.SNAPSHOT\"} 1\n",
                "rdma_agent_config_reloads_total{result=\"applied\"} 3.0\n",
                "rdma_agent_config_reloads_total{result=\"rejected\"} 1.0\n");
        assertThat(text).as("discovery registers its own MultiCollector").doesNotContain("rdma_agent_discovery_");
    }

    @Test
    void absentOrUnexpectedSectionsYieldNoSeries() throws IOException {
        String text = scrape(new FixedFigures(List.of(),
                Map.of("config", "not a map", "discovery", Map.of("revision", "seven"))));
        assertThat(text).isEmpty();
    }
}
