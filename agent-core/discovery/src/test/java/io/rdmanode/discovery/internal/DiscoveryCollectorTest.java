// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The {@code rdma_agent_discovery_*} series with the names and labels the metrics bundle served before. */
class DiscoveryCollectorTest {

    @Test
    void servesRevisionDevicesProblemsScansAndEvents() throws IOException {
        DiscoveryCollector collector = new DiscoveryCollector(
                () -> new DiscoveryFigures.Figures(7, 2, 1, 2, 9, 0, 12, 3));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, collector.collect());
        String text = out.toString(StandardCharsets.UTF_8);

        assertThat(text).contains(
                "rdma_agent_discovery_revision 7.0\n",
                "rdma_agent_discovery_devices 2.0\n",
                "rdma_agent_discovery_problems 1.0\n",
                "rdma_agent_discovery_scans_total{kind=\"full\"} 2.0\n",
                "rdma_agent_discovery_scans_total{kind=\"incremental\"} 9.0\n",
                "rdma_agent_discovery_scans_total{kind=\"failed\"} 0.0\n",
                "rdma_agent_discovery_kernel_events_total 12.0\n",
                "rdma_agent_discovery_verbs_events_total 3.0\n",
                "# TYPE rdma_agent_discovery_revision gauge\n",
                "# TYPE rdma_agent_discovery_scans_total counter\n");
    }
}
