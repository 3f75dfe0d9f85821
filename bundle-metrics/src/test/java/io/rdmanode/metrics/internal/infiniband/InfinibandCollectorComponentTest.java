// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import io.rdmanode.metrics.internal.MetricsConfig;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.util.converter.Converters;

/**
 * The RDMA collector's tuning (device filters, {@code hwCounters}) applies in place (issue 19): the same component
 * instance, so the same {@code MultiCollector} registration, serves the new choice from the next scrape, and its
 * values come through discovery's counters of the tree discovery reads.
 */
class InfinibandCollectorComponentTest {

    @TempDir
    Path dir;

    private static MetricsConfig config(Map<String, Object> props) {
        return Converters.standardConverter().convert(props).to(MetricsConfig.class);
    }

    @Test
    void aFilterOrHwCountersEditIsAppliedByTheRunningComponent() throws Exception {
        RecordedHostDiscovery host = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir);
        InfinibandCollectorComponent component = new InfinibandCollectorComponent(config(Map.of()), host);
        String all = InfinibandPortCollectorTest.render(component.collect());
        assertThat(all).contains("device=\"mlx5_0\"").contains("device=\"mlx5_1\"")
                .contains("rdma_agent_infiniband_out_of_buffer_drops_total");

        component.modified(config(Map.of("deviceInclude", "mlx5_0", "hwCounters", false)));

        String some = InfinibandPortCollectorTest.render(component.collect());
        assertThat(some).contains("device=\"mlx5_0\"").doesNotContain("device=\"mlx5_1\"")
                .doesNotContain("rdma_agent_infiniband_out_of_buffer_drops_total")     // a hw_counters file
                .contains("rdma_agent_infiniband_port_data_received_bytes_total");     // a counters/ file
    }
}
