// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

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
 * {@code rdma_agent_deviceplugin_held_device} (1 per device a running container holds, with its resource and pod)
 * and {@code rdma_agent_deviceplugin_held_released} from the allocation ledger. A plain component on the metrics
 * bundle's whiteboard.
 */
@Component(service = MultiCollector.class)
public final class HeldDevicesCollector implements MultiCollector {

    private final HeldFigures figures;

    @Activate
    public HeldDevicesCollector(@Reference HeldFigures figures) {
        this.figures = figures;
    }

    @Override
    public MetricSnapshots collect() {
        List<GaugeDataPointSnapshot> held = figures.heldDevices().stream().map(h -> new GaugeDataPointSnapshot(1,
                Labels.of("resource", h.resource(), "device", h.deviceId(), "holder", h.holder()), null)).toList();
        return new MetricSnapshots(
                new GaugeSnapshot(new MetricMetadata("rdma_agent_deviceplugin_held_device",
                        "1 per device of an exclusive pool a running container holds (allocation ledger, reconciled"
                                + " with kubelet's PodResources); holder is namespace/pod/container, empty until"
                                + " kubelet lists it"), held),
                new CounterSnapshot(new MetricMetadata("rdma_agent_deviceplugin_held_released",
                        "Held devices released because kubelet listed no running container holding them"),
                        List.of(new CounterDataPointSnapshot(figures.released(), Labels.EMPTY, null, 0L))));
    }
}
