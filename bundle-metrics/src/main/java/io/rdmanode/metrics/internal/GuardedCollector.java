// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusScrapeRequest;
import io.prometheus.metrics.model.snapshots.MetricFamilyDescriptor;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A contributed collector as the registry sees it: a collector that throws loses its own metrics for that
 * scrape (counted in {@code rdma_agent_metrics_collector_errors_total}) instead of failing the whole page, and
 * the time each collect takes is kept (node_exporter's {@code node_scrape_collector_duration_seconds}). In a
 * {@link StreamedScrape} a {@link StreamedCollector} hands its families to the scrape (the time kept is its
 * read, the writing comes later) and returns no snapshots.
 */
final class GuardedCollector implements MultiCollector {

    private static final Logger LOG = LoggerFactory.getLogger(GuardedCollector.class);

    private final String name;
    private final MultiCollector delegate;
    private final AtomicLong errors = new AtomicLong();
    private volatile double lastSeconds = Double.NaN;

    GuardedCollector(String name, MultiCollector delegate) {
        this.name = name;
        this.delegate = delegate;
    }

    String name() {
        return name;
    }

    long errors() {
        return errors.get();
    }

    /** One of its families had a name another collector's family took first: left out of this scrape. */
    void clashed(String family, RuntimeException clash) {
        if (errors.getAndIncrement() == 0) {
            LOG.warn("collector left out of the scrape, its family clashes with another collector's collector={}"
                    + " family={}: {}", name, family, clash.getMessage());
        }
    }

    /** How long its last collect took, seconds; NaN before the first. */
    double lastSeconds() {
        return lastSeconds;
    }

    @Override
    public MetricSnapshots collect() {
        return collect(n -> true, null);
    }

    @Override
    public MetricSnapshots collect(PrometheusScrapeRequest request) {
        return collect(n -> true, request);
    }

    @Override
    public MetricSnapshots collect(Predicate<String> includedNames) {
        return collect(includedNames, null);
    }

    @Override
    public MetricSnapshots collect(Predicate<String> includedNames, PrometheusScrapeRequest request) {
        long start = System.nanoTime();
        try {
            if (request instanceof StreamedScrape scrape) {
                if (delegate instanceof StreamedCollector streamed) {
                    Optional<StreamedFamilies> families = streamed.stream();
                    if (families.isPresent()) {
                        scrape.add(families.get());
                        return new MetricSnapshots();
                    }
                }
                return delegate.collect(includedNames, null);
            }
            return delegate.collect(includedNames, request);
        } catch (RuntimeException e) {
            if (errors.getAndIncrement() == 0) {
                LOG.warn("collector failed, its metrics are left out of this scrape collector={}", name, e);
            } else {
                LOG.debug("collector failed again collector={}: {}", name, e.toString());
            }
            return new MetricSnapshots();
        } finally {
            lastSeconds = (System.nanoTime() - start) / 1e9;
        }
    }

    /** What the registry checks names and label schemas against (client_java 1.8). */
    @Override
    public List<MetricFamilyDescriptor> getMetricFamilyDescriptors() {
        return delegate.getMetricFamilyDescriptors();
    }

    @Override
    public List<String> getPrometheusNames() {
        return delegate.getPrometheusNames();
    }
}
