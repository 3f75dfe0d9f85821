// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;
import io.rdmanode.discovery.RdmaCounter;
import io.rdmanode.discovery.RdmaCounters;
import java.util.ArrayList;
import java.util.List;

/**
 * What one scrape reads, worked out once per discovery revision: every metric family with, per data point,
 * its labels and the discovery value behind it ({@link RdmaCounter}), all read through one prepared
 * {@link RdmaCounters.Reader}. A scrape then only asks discovery for those values (no directory listing, no
 * symlink resolution here): discovery is the one reader of {@code class/infiniband}.
 */
final class ScrapePlan {

    /**
     * A value: the {@code index}-th of the plan's reader times {@code scale}, or a constant ({@code index < 0}).
     */
    record Point(Labels labels, int index, double scale, double constant) {

        /** The value, NaN when discovery could not read or parse it (absent series). */
        double value(double[] values) {
            return index < 0 ? constant : values[index] * scale;
        }
    }

    /** One metric family: a counter, a gauge, or an info metric (constant 1, labels only). */
    record Family(MetricMetadata metadata, Kind kind, List<Point> points) {

        enum Kind { COUNTER, GAUGE, INFO }

        MetricSnapshot read(double[] values) {
            return switch (kind) {
                case COUNTER -> counters(values);
                case GAUGE -> gauges(values);
                case INFO -> new InfoSnapshot(metadata, points.stream()
                        .map(p -> new InfoSnapshot.InfoDataPointSnapshot(p.labels())).toList());
            };
        }

        private MetricSnapshot counters(double[] values) {
            List<CounterDataPointSnapshot> out = new ArrayList<>(points.size());
            for (Point p : points) {
                double v = p.value(values);
                if (!Double.isNaN(v)) {
                    out.add(new CounterDataPointSnapshot(v, p.labels(), null, 0L));
                }
            }
            return out.isEmpty() ? null : new CounterSnapshot(metadata, out);
        }

        private MetricSnapshot gauges(double[] values) {
            List<GaugeDataPointSnapshot> out = new ArrayList<>(points.size());
            for (Point p : points) {
                double v = p.value(values);
                if (!Double.isNaN(v)) {
                    out.add(new GaugeDataPointSnapshot(v, p.labels(), null));
                }
            }
            return out.isEmpty() ? null : new GaugeSnapshot(metadata, out);
        }

        static MetricMetadata metadata(String name, String help, boolean bytes, boolean seconds) {
            return new MetricMetadata(name, help, bytes ? Unit.BYTES : seconds ? Unit.SECONDS : null);
        }
    }

    private final long revision;
    private final List<Family> families;
    private final RdmaCounters.Reader reader;

    ScrapePlan(long revision, List<Family> families, RdmaCounters.Reader reader) {
        this.revision = revision;
        this.families = List.copyOf(families);
        this.reader = reader;
    }

    long revision() {
        return revision;
    }

    int points() {
        return families.stream().mapToInt(f -> f.points().size()).sum();
    }

    /** Reads every planned value once; a family whose values all failed is left out. */
    MetricSnapshots read() {
        double[] values = new double[reader.size()];
        reader.read(values);
        List<MetricSnapshot> out = new ArrayList<>(families.size());
        for (Family f : families) {
            MetricSnapshot s = f.read(values);
            if (s != null) {
                out.add(s);
            }
        }
        return new MetricSnapshots(out);
    }
}
