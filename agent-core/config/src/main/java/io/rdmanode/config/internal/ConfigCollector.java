// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.List;
import java.util.function.LongSupplier;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code rdma_agent_config_reloads_total{result}}: the config bundle's own series, read at scrape time from its
 * reload counts. A plain component; without lib-prometheus (an optional import) SCR cannot load it and the bridge
 * works as usual, only without metrics.
 */
@Component(service = MultiCollector.class)
public final class ConfigCollector implements MultiCollector {

    private final LongSupplier applied;
    private final LongSupplier rejected;

    @Activate
    public ConfigCollector(@Reference ReloadCounts counts) {
        this(counts::appliedCount, counts::rejectedCount);
    }

    ConfigCollector(LongSupplier applied, LongSupplier rejected) {
        this.applied = applied;
        this.rejected = rejected;
    }

    @Override
    public MetricSnapshots collect() {
        return new MetricSnapshots(new CounterSnapshot(new MetricMetadata("rdma_agent_config_reloads",
                "Configuration file revisions applied or rejected since the config bundle started"), List.of(
                new CounterDataPointSnapshot(applied.getAsLong(), Labels.of("result", "applied"), null, 0L),
                new CounterDataPointSnapshot(rejected.getAsLong(), Labels.of("result", "rejected"), null, 0L))));
    }

    @Override
    public List<String> getPrometheusNames() {
        return List.of("rdma_agent_config_reloads");
    }
}
