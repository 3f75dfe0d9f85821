// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
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
import java.util.Map;

/**
 * Agent-wide figures: bundle states (from the framework) and config reloads, read from the {@code config}
 * status section; a section that is absent (bundle stopped) or has another shape simply yields no series.
 * Discovery serves its own {@code rdma_agent_discovery_*} series (its {@code MultiCollector}).
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
        Map<String, Object> sections = figures.statusSections();
        configReloads(sections.get("config"), out);
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

    /** {@code config.reloads = {applied: N, rejected: N}}. */
    private static void configReloads(Object config, List<MetricSnapshot> out) {
        Object reloads = member(config, "reloads");
        List<CounterDataPointSnapshot> points = new ArrayList<>();
        for (String result : List.of("applied", "rejected")) {
            Object n = member(reloads, result);
            if (n instanceof Number number) {
                points.add(new CounterDataPointSnapshot(number.doubleValue(), Labels.of("result", result), null, 0L));
            }
        }
        if (!points.isEmpty()) {
            out.add(new CounterSnapshot(new MetricMetadata("rdma_agent_config_reloads",
                    "Configuration file revisions applied or rejected since the config bundle started"), points));
        }
    }

    private static Object member(Object tree, String key) {
        return tree instanceof Map<?, ?> map ? map.get(key) : null;
    }
}
