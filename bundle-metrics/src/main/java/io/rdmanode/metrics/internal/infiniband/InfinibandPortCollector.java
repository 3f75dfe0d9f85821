// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaCounters;
import io.rdmanode.metrics.internal.StreamedCollector;
import io.rdmanode.metrics.internal.StreamedFamilies;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * RDMA port counters with node_exporter's infiniband names under {@code rdma_agent_infiniband_}, labelled
 * {@code device} and {@code port}: every {@code counters/} file (data counters converted from 4-byte words to
 * bytes), every {@code hw_counters/} file, link state, physical state and rate. Each scrape reads only the
 * values the current discovery snapshot lists, through discovery's {@link RdmaCounters}; the plan is rebuilt when the snapshot's revision changes.
 * Thread-safe; concurrent scrapes may both rebuild a stale plan, which is harmless.
 */
public final class InfinibandPortCollector implements StreamedCollector {

    private final Supplier<HostSnapshot> snapshots;
    private final Predicate<String> devices;
    private final boolean hwCounters;
    private final RdmaCounters counters;
    private final int slices;
    private final Executor readers;
    private volatile ScrapePlan plan;

    /** @param counters discovery's reader of the tree the snapshots come from ({@code RdmaDiscovery.counters()}) */
    public InfinibandPortCollector(Supplier<HostSnapshot> snapshots, RdmaCounters counters, String deviceInclude,
                                   String deviceExclude, boolean hwCounters) {
        this(snapshots, counters, deviceInclude, deviceExclude, hwCounters, 1, null);
    }

    /**
     * @param slices  into how many slices a scrape's reads are cut, read at the same time
     * @param readers the threads that read all slices but the first (the scraping thread's); null: none
     */
    public InfinibandPortCollector(Supplier<HostSnapshot> snapshots, RdmaCounters counters, String deviceInclude,
                                   String deviceExclude, boolean hwCounters, int slices, Executor readers) {
        this.snapshots = snapshots;
        this.counters = counters;
        this.devices = deviceFilter(deviceInclude, deviceExclude);
        this.hwCounters = hwCounters;
        this.slices = slices;
        this.readers = readers;
    }

    @Override
    public MetricSnapshots collect() {
        return currentPlan().read();
    }

    /** The host's families read now, written straight into the page: the content of {@link #collect()}. */
    @Override
    public Optional<StreamedFamilies> stream() {
        return Optional.of(currentPlan().stream());
    }

    /** The host's series with {@code more} (the devices in pods) merged in, family by family. */
    public MetricSnapshots collect(List<MetricSnapshots> more) {
        return SnapshotMerge.merge(currentPlan().read(), more);
    }

    /** The host's series with those of the RDMA devices in pods, read with this collector's filter. */
    public MetricSnapshots collect(PodPortSource pods) {
        return collect(pods.read(devices, hwCounters));
    }

    ScrapePlan currentPlan() {
        HostSnapshot s = snapshots.get();
        ScrapePlan p = plan;
        if (p == null || p.revision() != s.revision()) {
            p = new ScrapePlanner(devices, hwCounters, counters, Labels.EMPTY, slices, readers).plan(s);
            plan = p;
        }
        return p;
    }

    /**
     * node_exporter's {@code --collector.infiniband.device-include/-exclude}: empty means no restriction.
     *
     * @throws IllegalArgumentException naming the key when a pattern is not a regular expression
     */
    static Predicate<String> deviceFilter(String include, String exclude) {
        Predicate<String> in = include.isEmpty() ? n -> true : pattern("deviceInclude", include);
        Predicate<String> out = exclude.isEmpty() ? n -> false : pattern("deviceExclude", exclude);
        return in.and(out.negate());
    }

    private static Predicate<String> pattern(String key, String regex) {
        try {
            return Pattern.compile(regex).asMatchPredicate();
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("metrics." + key + " is not a regular expression: "
                    + e.getDescription() + " near index " + e.getIndex() + " of '" + regex + "'", e);
        }
    }
}
