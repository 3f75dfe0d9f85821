// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.metrics.internal.infiniband.InfinibandPortCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark's generated 16 HCA x 2 port host is one discovery reads without problems. */
class ScaleHostTest {

    @TempDir
    Path dir;

    @Test
    void everyPortOfTheGeneratedHostIsReported() {
        RecordedHost host = ScaleHost.generate(dir, 16, 2);
        HostSnapshot s = host.scan();
        assertThat(s.devices()).hasSize(16).allSatisfy(d -> assertThat(d.ports()).hasSize(2));
        assertThat(s.problems()).isEmpty();
        int series = 0;
        for (MetricSnapshot m : new InfinibandPortCollector(() -> s, host.counters(), "", "", true).collect()) {
            series += m.getDataPoints().size();
        }
        // per port: 19 counters + 18 hw_counters + state, phys_state, rate, port_info; per device: info
        assertThat(series).isEqualTo(32 * (19 + 18 + 4) + 16);
    }
}
