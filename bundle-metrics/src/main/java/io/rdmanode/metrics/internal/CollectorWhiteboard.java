// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry of one metrics component and the collectors other bundles contribute to it. A collector is
 * registered when its service appears and unregistered when it goes, so a bundle that is stopped or swapped
 * takes its metrics with it and its successor can register the same names again (java-stack.md §4.7).
 * Thread-safe.
 */
public final class CollectorWhiteboard {

    private static final Logger LOG = LoggerFactory.getLogger(CollectorWhiteboard.class);

    private final PrometheusRegistry registry;
    private final Map<MultiCollector, GuardedCollector> bound = new IdentityHashMap<>();
    private final Map<String, Long> errorsOfGone = new TreeMap<>();

    public CollectorWhiteboard(PrometheusRegistry registry) {
        this.registry = registry;
        registry.register(this::selfMetrics);
    }

    /** Registers a contributed collector; one whose metric names are taken already is refused with a warning. */
    public synchronized boolean add(String name, MultiCollector collector) {
        GuardedCollector guarded = new GuardedCollector(name, collector);
        try {
            registry.register(guarded);
        } catch (IllegalArgumentException | IllegalStateException e) {
            LOG.warn("collector refused collector={}: {}", name, e.getMessage());
            return false;
        }
        bound.put(collector, guarded);
        LOG.debug("collector added collector={}", name);
        return true;
    }

    public synchronized void remove(MultiCollector collector) {
        GuardedCollector guarded = bound.remove(collector);
        if (guarded != null) {
            registry.unregister(guarded);
            if (guarded.errors() > 0) {
                errorsOfGone.merge(guarded.name(), guarded.errors(), Long::sum);
            }
            LOG.debug("collector removed collector={}", guarded.name());
        }
    }

    public synchronized int size() {
        return bound.size();
    }

    /** Everything the collectors have now (client_java merges same-name families when it writes them). */
    public MetricSnapshots scrape() {
        return registry.scrape();
    }

    /** The same, with {@link StreamedCollector}s handing their families to {@code scrape} instead. */
    MetricSnapshots scrape(StreamedScrape scrape) {
        return registry.scrape(scrape);
    }

    /**
     * The scrape when {@link #scrape()} could not be written: two collectors produced the same series (one
     * declared no names, so registration could not tell). Each collector is read on its own, in name order; the
     * first family of a name is kept and the later collector's clash counts as its error.
     */
    public MetricSnapshots scrapeWithoutClashes(RuntimeException clash) {
        return scrapeEachAlone(clash);
    }

    private MetricSnapshots scrapeEachAlone(RuntimeException clash) {
        List<GuardedCollector> collectors;
        synchronized (this) {
            collectors = bound.values().stream().sorted(Comparator.comparing(GuardedCollector::name))
                    .toList();
        }
        Map<String, MetricSnapshot> families = new LinkedHashMap<>();
        selfMetrics().forEach(m -> families.put(m.getMetadata().getPrometheusName(), m));
        for (GuardedCollector g : collectors) {
            for (MetricSnapshot m : g.collect()) {
                if (families.putIfAbsent(m.getMetadata().getPrometheusName(), m) != null) {
                    g.clashed(m.getMetadata().getPrometheusName(), clash);
                }
            }
        }
        return new MetricSnapshots(families.values());
    }

    /** The {@code metrics.collectors} member of {@code /status}: each bound collector with its figures. */
    public synchronized List<Object> status() {
        List<Object> out = new ArrayList<>();
        bound.values().stream().sorted(Comparator.comparing(GuardedCollector::name)).forEach(g -> {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("name", g.name());
            c.put("errors", g.errors());
            if (!Double.isNaN(g.lastSeconds())) {
                c.put("lastCollectSeconds", g.lastSeconds());
            }
            out.add(c);
        });
        return out;
    }

    private synchronized MetricSnapshots selfMetrics() {
        Map<String, Long> errors = new TreeMap<>(errorsOfGone);
        for (GuardedCollector g : bound.values()) {
            errors.merge(g.name(), g.errors(), Long::sum);
        }
        List<CounterDataPointSnapshot> points = new ArrayList<>();
        errors.forEach((n, e) -> points.add(new CounterDataPointSnapshot(e, Labels.of("collector", n), null, 0L)));
        Map<String, Double> durations = new TreeMap<>();
        bound.values().stream().filter(g -> !Double.isNaN(g.lastSeconds()))
                .forEach(g -> durations.put(g.name(), g.lastSeconds()));
        List<GaugeDataPointSnapshot> took = new ArrayList<>();
        durations.forEach((n, d) -> took.add(new GaugeDataPointSnapshot(d, Labels.of("collector", n), null)));
        return new MetricSnapshots(
                new GaugeSnapshot(new MetricMetadata("rdma_agent_metrics_collector_duration_seconds",
                        "How long each contributed collector took in its latest collect", Unit.SECONDS), took),
                new GaugeSnapshot(new MetricMetadata("rdma_agent_metrics_collectors",
                        "Collectors contributed by bundles and registered with the metrics endpoint"),
                        List.of(new GaugeDataPointSnapshot(bound.size(), Labels.EMPTY, null))),
                new CounterSnapshot(new MetricMetadata("rdma_agent_metrics_collector_errors",
                        "Scrapes in which a contributed collector threw, so its metrics were left out"), points));
    }
}
