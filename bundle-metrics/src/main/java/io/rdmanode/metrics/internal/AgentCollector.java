// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot.InfoDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.rdmanode.metrics.internal.AgentFigures.BundleFigure;
import java.util.ArrayList;
import java.util.List;

/**
 * Agent-wide figures from the framework: the state of every installed bundle. Bundles contribute their own
 * series as collectors ({@code rdma_agent_config_*} from the config bundle, {@code rdma_agent_discovery_*} from
 * discovery, {@code rdma_agent_deviceplugin_*} from the kubelet host): nothing here reads {@code /status}.
 */
final class AgentCollector implements MultiCollector {

    private final AgentFigures figures;

    AgentCollector(AgentFigures figures) {
        this.figures = figures;
    }

    @Override
    public MetricSnapshots collect() {
        List<MetricSnapshot> out = new ArrayList<>();
        bundles(out);
        return new MetricSnapshots(out);
    }

    private void bundles(List<MetricSnapshot> out) {
        List<GaugeDataPointSnapshot> active = new ArrayList<>();
        List<InfoDataPointSnapshot> info = new ArrayList<>();
        for (BundleFigure b : figures.bundles()) {
            active.add(new GaugeDataPointSnapshot(b.state().equals("active") ? 1 : 0,
                    Labels.of("bundle", b.bundle()), null));
            info.add(new InfoDataPointSnapshot(Labels.of("bundle", b.bundle(), "symbolic_name", b.symbolicName(),
                    "version", b.version(), "state", b.state())));
        }
        if (!active.isEmpty()) {
            out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_bundle_active",
                    "1 when the bundle is ACTIVE, 0 in any other state (installed, resolved, starting, stopping)"),
                    active));
            out.add(new InfoSnapshot(new MetricMetadata("rdma_agent_bundle",
                    "Installed bundles with symbolic name, version and state, value is always 1"), info));
        }
    }
}
