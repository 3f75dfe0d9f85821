// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.List;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code rdma_agent_discovery_*}: the same series and labels the metrics bundle used to derive from the
 * {@code discovery} status section, read from the engine at scrape time, plus the verbs event count. A plain
 * component contributing a client_java {@code MultiCollector} to the metrics bundle's whiteboard; it needs
 * lib-prometheus (an optional import: without it SCR cannot load this class and discovery runs without metrics).
 */
@Component(service = MultiCollector.class)
public final class DiscoveryCollector implements MultiCollector {

    private final DiscoveryFigures discovery;

    @Activate
    public DiscoveryCollector(@Reference DiscoveryFigures discovery) {
        this.discovery = discovery;
    }

    @Override
    public MetricSnapshots collect() {
        DiscoveryFigures.Figures f = discovery.figures();
        return new MetricSnapshots(
                gauge("rdma_agent_discovery_revision",
                        "Revision of the RDMA topology snapshot; grows by one with every change", f.revision()),
                gauge("rdma_agent_discovery_devices", "RDMA devices in the current topology snapshot", f.devices()),
                gauge("rdma_agent_discovery_problems",
                        "Objects discovery could not read in the current snapshot (see /status)", f.problems()),
                new CounterSnapshot(new MetricMetadata("rdma_agent_discovery_scans",
                        "Topology scans since discovery started: full (start, safety-net rescans), incremental (after"
                                + " kernel events), failed"), List.of(
                        point(f.fullScans(), Labels.of("kind", "full")),
                        point(f.incrementalScans(), Labels.of("kind", "incremental")),
                        point(f.failedScans(), Labels.of("kind", "failed")))),
                new CounterSnapshot(new MetricMetadata("rdma_agent_discovery_kernel_events",
                        "Kernel notifications (uevent, rtnetlink) that asked discovery for an incremental scan"),
                        List.of(point(f.kernelEvents(), Labels.EMPTY))),
                new CounterSnapshot(new MetricMetadata("rdma_agent_discovery_verbs_events",
                        "Verbs async events (port active/error, GID change, device fatal, ...) received from"
                                + " libibverbs"), List.of(point(f.verbsEvents(), Labels.EMPTY))));
    }

    private static GaugeSnapshot gauge(String name, String help, double value) {
        return new GaugeSnapshot(new MetricMetadata(name, help),
                List.of(new GaugeDataPointSnapshot(value, Labels.EMPTY, null)));
    }

    private static CounterDataPointSnapshot point(double value, Labels labels) {
        return new CounterDataPointSnapshot(value, labels, null, 0L);
    }
}
