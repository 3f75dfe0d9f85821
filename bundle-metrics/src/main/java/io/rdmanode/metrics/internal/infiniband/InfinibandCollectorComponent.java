// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.rdmanode.metrics.internal.StreamedCollector;
import io.rdmanode.metrics.internal.StreamedFamilies;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.rdmanode.discovery.RdmaCounter;
import io.rdmanode.discovery.RdmaCounters;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.metrics.internal.MetricsConfig;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * Publishes the RDMA port counters as a {@link MultiCollector} service, picked up by the metrics endpoint like
 * any other bundle's collector. The discovery reference is static: when discovery is swapped this component goes
 * with it (its series disappear) and comes back on the new service; its own tuning applies in place. The series of devices
 * the CNI plugin moved into pods come from {@link PodPortSource} and join the same families.
 */
@Component(service = MultiCollector.class, configurationPid = MetricsConfig.PID,
           configurationPolicy = ConfigurationPolicy.OPTIONAL)
public final class InfinibandCollectorComponent implements StreamedCollector {

    /**
     * A scrape's reads are cut into this many slices, one per core up to 4 (bounded: a scrape should not take
     * every core of a big node from its workloads); the scraping thread reads one, these threads the rest.
     */
    private static final int SLICES = Math.min(4, Runtime.getRuntime().availableProcessors());

    private final RdmaDiscovery discovery;
    private final ExecutorService readers = Executors.newFixedThreadPool(Math.max(1, SLICES - 1), new ThreadFactory() {
        private final AtomicInteger n = new AtomicInteger();

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "rdma-agent-metrics-reader-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        }
    });
    private volatile InfinibandPortCollector collector;

    /** The series of RDMA devices in pods, while the CNI plugin runs. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
               policyOption = ReferencePolicyOption.GREEDY)
    private volatile PodPortSource pods;

    /** @param discovery the topology and the one reader of its counters ({@link RdmaDiscovery#counters()}) */
    @Activate
    public InfinibandCollectorComponent(MetricsConfig config, @Reference RdmaDiscovery discovery) {
        this.discovery = discovery;
        this.collector = collector(config);
    }

    /**
     * Filters and {@code hwCounters} are tuning: a new collector (its plan made on the next scrape) behind the same
     * service registration, so the metrics endpoint's whiteboard sees no collector leave and come back.
     */
    @Modified
    void modified(MetricsConfig config) {
        collector = collector(config);
    }

    @Deactivate
    void stop() {
        // Not shutdownNow: a slice already queued must still run, its scrape waits for it; a scrape that comes
        // later is refused the pool and reads its slices itself (ValueReader).
        readers.shutdown();
    }

    private InfinibandPortCollector collector(MetricsConfig config) {
        return new InfinibandPortCollector(discovery::snapshot, new DiscoveryCounters(discovery),
                config.deviceInclude(), config.deviceExclude(), config.hwCounters(), SLICES,
                SLICES > 1 ? readers : null);
    }

    /** The tree discovery reads now: another root (a configuration edit) is read from the next plan on. */
    private record DiscoveryCounters(RdmaDiscovery discovery) implements RdmaCounters {
        @Override
        public Optional<String> deviceAttribute(String device, DeviceAttribute attribute) {
            return discovery.counters().deviceAttribute(device, attribute);
        }

        @Override
        public List<String> counterNames(String device, int port, RdmaCounter.Kind kind) {
            return discovery.counters().counterNames(device, port, kind);
        }

        @Override
        public Reader reader(List<RdmaCounter> counters) {
            return discovery.counters().reader(counters);
        }
    }

    /** Streamed while no pod devices join the families (merging those is {@link #collect()}'s). */
    @Override
    public Optional<StreamedFamilies> stream() {
        return pods == null ? collector.stream() : Optional.empty();
    }

    @Override
    public MetricSnapshots collect() {
        PodPortSource p = pods;
        InfinibandPortCollector c = collector;
        return p == null ? c.collect() : c.collect(p);
    }
}
