// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

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
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.List;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;

/**
 * The DRA driver's metrics, read at scrape time. A component of its own: without lib-prometheus (an optional
 * import) SCR cannot load it and the driver serves on.
 */
@Component(service = MultiCollector.class, configurationPid = DraComponent.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class DraCollector implements MultiCollector {

    private final DraFigures figures;

    @Activate
    public DraCollector(@Reference DraFigures figures) {
        this.figures = figures;
    }

    @Override
    public MetricSnapshots collect() {
        DraStats s = figures.stats();
        return new MetricSnapshots(
                new CounterSnapshot(new MetricMetadata("rdma_agent_dra_claims_prepared",
                        "Claims answered by NodePrepareResources, by result (ok, refused: a per-claim error)"),
                        List.of(counter(s.claimsPrepared.sum(), Labels.of("result", "ok")),
                                counter(s.claimsRefused.sum(), Labels.of("result", "refused")))),
                new CounterSnapshot(new MetricMetadata("rdma_agent_dra_prepare_refusals",
                        "Claims NodePrepareResources refused, by reason (claim_not_found, api_error, uid_mismatch,"
                                + " not_allocated_to_driver, device_gone, device_unusable, device_held, write_failed)"),
                        s.refusals.entrySet().stream().map(e -> counter(e.getValue().sum(),
                                Labels.of("reason", e.getKey().label))).toList()),
                new CounterSnapshot(new MetricMetadata("rdma_agent_dra_claims_unprepared",
                        "Claims answered by NodeUnprepareResources, by result (ok, error)"),
                        List.of(counter(s.claimsUnprepared.sum(), Labels.of("result", "ok")),
                                counter(s.unprepareErrors.sum(), Labels.of("result", "error")))),
                new CounterSnapshot(new MetricMetadata("rdma_agent_dra_calls_unanswered",
                        "Prepare and Unprepare calls not answered, by reason (busy: every call slot taken, refused at"
                                + " once; abandoned: the client gave up, deadline or cancel, before the answer)"),
                        List.of(counter(s.callsRefusedBusy.sum(), Labels.of("reason", "busy")),
                                counter(s.callsAbandoned.sum(), Labels.of("reason", "abandoned")))),
                new HistogramSnapshot(new MetricMetadata("rdma_agent_dra_prepare_duration_seconds",
                        "Time to answer one NodePrepareResources call (all claims of a pod)", Unit.SECONDS),
                        List.of(histogram(s))),
                new GaugeSnapshot(new MetricMetadata("rdma_agent_dra_claims",
                        "Claims prepared on this node now (in the checkpoint)"),
                        List.of(new GaugeDataPointSnapshot(figures.preparedClaims(), Labels.EMPTY, null))),
                new GaugeSnapshot(new MetricMetadata("rdma_agent_dra_pool_generation",
                        "Generation of each published ResourceSlice pool of this node (0: not published yet)"),
                        figures.sliceGenerations().entrySet().stream().map(e -> new GaugeDataPointSnapshot(
                                e.getValue(), Labels.of("pool", e.getKey()), null)).toList()));
    }

    private static CounterDataPointSnapshot counter(double value, Labels labels) {
        return new CounterDataPointSnapshot(value, labels, null, 0L);
    }

    private static HistogramDataPointSnapshot histogram(DraStats s) {
        double[] bounds = new double[DraStats.PREPARE_BUCKETS.length + 1];
        long[] counts = new long[bounds.length];
        System.arraycopy(DraStats.PREPARE_BUCKETS, 0, bounds, 0, DraStats.PREPARE_BUCKETS.length);
        bounds[bounds.length - 1] = Double.POSITIVE_INFINITY;
        for (int i = 0; i < counts.length; i++) {
            counts[i] = s.prepareBuckets[i].sum();
        }
        return new HistogramDataPointSnapshot(ClassicHistogramBuckets.of(bounds, counts), s.prepareNanos.sum() / 1e9,
                Labels.EMPTY, null, 0L);
    }
}
