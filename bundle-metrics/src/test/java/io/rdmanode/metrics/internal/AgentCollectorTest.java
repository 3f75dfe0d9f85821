// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.rdmanode.metrics.internal.AgentFigures.BundleFigure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentCollectorTest {

    private static String scrape(AgentFigures figures) throws IOException {
        return new String(ScrapeHandler.render(PrometheusTextFormatWriter.create(),
                new AgentCollector(figures).collect(), false), StandardCharsets.UTF_8);
    }

    @Test
    void reportsBundleStates() throws IOException {
        String text = scrape(new FixedFigures(
                List.of(new BundleFigure("config", "io.rdmanode.config", "0.1.0.SNAPSHOT", "active"),
                        new BundleFigure("discovery", "io.rdmanode.discovery", "0.1.0.SNAPSHOT", "resolved"))));
        assertThat(text).contains("rdma_agent_bundle_active{bundle=\"config\"} 1.0\n",
                "rdma_agent_bundle_active{bundle=\"discovery\"} 0.0\n",
                "rdma_agent_bundle_info{bundle=\"discovery\",state=\"resolved\",symbolic_name=\"io.rdmanode.discovery\","
                        + "version=\"0.1.0.SNAPSHOT\"} 1\n");
    }

    @Test
    void noBundlesNoSeries() throws IOException {
        assertThat(scrape(new FixedFigures(List.of()))).isEmpty();
    }

    /**
     * Issue 9 item 5: a scrape does not build the {@code /status} tree. The agent collector's component
     * descriptor (what SCR wires) binds no status section; config and discovery serve their own collectors.
     */
    @Test
    void theAgentCollectorComponentBindsNoStatusSection() throws IOException {
        try (var in = AgentCollectorComponent.class.getResourceAsStream(
                "/OSGI-INF/" + AgentCollectorComponent.class.getName() + ".xml")) {
            assertThat(in).as("component descriptor written by bnd").isNotNull();
            String xml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(xml).contains("io.prometheus.metrics.model.registry.MultiCollector")
                    .doesNotContain("StatusSection");
        }
    }
}
