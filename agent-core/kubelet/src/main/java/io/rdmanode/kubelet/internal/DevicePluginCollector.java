// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import io.rdmanode.kubelet.ResourceFigures;
import java.util.ArrayList;
import java.util.List;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code rdma_agent_deviceplugin_*}: per served resource, read at scrape time from the servers' counters.
 * A plain component on the metrics bundle's whiteboard; a resource that stops being served drops out of the next
 * scrape. Without lib-prometheus (an optional import) SCR cannot load it and the host serves on.
 */
@Component(service = MultiCollector.class)
public final class DevicePluginCollector implements MultiCollector {

    private final ServerFigures servers;

    @Activate
    public DevicePluginCollector(@Reference ServerFigures servers) {
        this.servers = servers;
    }

    @Override
    public MetricSnapshots collect() {
        List<DevicePluginServer> now = servers.servers();
        List<CounterDataPointSnapshot> registrations = new ArrayList<>();
        List<CounterDataPointSnapshot> restarts = new ArrayList<>();
        List<CounterDataPointSnapshot> allocations = new ArrayList<>();
        List<CounterDataPointSnapshot> updates = new ArrayList<>();
        List<CounterDataPointSnapshot> refused = new ArrayList<>();
        List<HistogramDataPointSnapshot> latency = new ArrayList<>();
        List<GaugeDataPointSnapshot> devices = new ArrayList<>();
        List<GaugeDataPointSnapshot> registered = new ArrayList<>();
        for (DevicePluginServer server : now) {
            ResourceFigures f = server.figures();
            ResourceStats stats = server.stats();
            String r = f.resourceName();
            registrations.add(counter(f.registrations(), Labels.of("resource", r, "result", "ok")));
            registrations.add(counter(f.registrationFailures(), Labels.of("resource", r, "result", "failed")));
            restarts.add(counter(stats.kubeletRestarts.sum(), Labels.of("resource", r)));
            allocations.add(counter(f.allocations(), Labels.of("resource", r, "result", "ok")));
            allocations.add(counter(f.allocationFailures(), Labels.of("resource", r, "result", "error")));
            updates.add(counter(f.listAndWatchUpdates(), Labels.of("resource", r)));
            refused.add(counter(stats.refusedBusy.sum(), Labels.of("resource", r, "reason", "busy")));
            refused.add(counter(stats.refusedOversize.sum(), Labels.of("resource", r, "reason", "oversize")));
            refused.add(counter(stats.refusedMalformed.sum(), Labels.of("resource", r, "reason", "malformed")));
            refused.add(counter(stats.callsTimedOut.sum(), Labels.of("resource", r, "reason", "timeout")));
            latency.add(histogram(stats, f.allocateSeconds(), Labels.of("resource", r)));
            devices.add(new GaugeDataPointSnapshot(f.devicesHealthy(), Labels.of("resource", r, "health", "healthy"),
                    null));
            devices.add(new GaugeDataPointSnapshot(f.devicesAdvertised() - f.devicesHealthy(),
                    Labels.of("resource", r, "health", "unhealthy"), null));
            registered.add(new GaugeDataPointSnapshot(f.registered() ? 1 : 0, Labels.of("resource", r), null));
        }
        List<MetricSnapshot> out = new ArrayList<>();
        if (!now.isEmpty()) {
            out.add(new CounterSnapshot(new MetricMetadata("rdma_agent_deviceplugin_registrations",
                    "Register calls to kubelet, accepted (ok) or not (failed)"), registrations));
            out.add(new CounterSnapshot(new MetricMetadata("rdma_agent_deviceplugin_kubelet_restarts",
                    "kubelet restarts seen (a new kubelet.sock) that made the plugin serve and register again"),
                    restarts));
            out.add(new CounterSnapshot(new MetricMetadata("rdma_agent_deviceplugin_allocations",
                    "Allocate container requests answered (ok) and Allocate calls refused (error)"), allocations));
            out.add(new CounterSnapshot(new MetricMetadata("rdma_agent_deviceplugin_list_and_watch_updates",
                    "Device lists sent to kubelet on ListAndWatch streams"), updates));
            out.add(new CounterSnapshot(new MetricMetadata("rdma_agent_deviceplugin_calls_refused",
                    "gRPC calls the host answered itself: no call slot free (busy), request over the resource's"
                    + " size limit (oversize), not protobuf (malformed), past the call timeout (timeout)"), refused));
            out.add(new HistogramSnapshot(new MetricMetadata("rdma_agent_deviceplugin_allocate_duration_seconds",
                    "Time to answer an Allocate call", Unit.SECONDS), latency));
            out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_deviceplugin_devices",
                    "Device IDs advertised to kubelet, by health"), devices));
            out.add(new GaugeSnapshot(new MetricMetadata("rdma_agent_deviceplugin_registered",
                    "1 while kubelet has accepted the resource's latest registration"), registered));
        }
        return new MetricSnapshots(out);
    }

    private static CounterDataPointSnapshot counter(double value, Labels labels) {
        return new CounterDataPointSnapshot(value, labels, null, 0L);
    }

    private static HistogramDataPointSnapshot histogram(ResourceStats stats, double sum, Labels labels) {
        double[] bounds = new double[ResourceStats.ALLOCATE_BUCKETS.length + 1];
        long[] counts = new long[bounds.length];
        System.arraycopy(ResourceStats.ALLOCATE_BUCKETS, 0, bounds, 0, ResourceStats.ALLOCATE_BUCKETS.length);
        bounds[bounds.length - 1] = Double.POSITIVE_INFINITY;
        for (int i = 0; i < counts.length; i++) {
            counts[i] = stats.allocateBuckets[i].sum();
        }
        return new HistogramDataPointSnapshot(ClassicHistogramBuckets.of(bounds, counts), sum, labels, null, 0L);
    }
}
