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
import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/**
 * What one scrape reads, worked out once per discovery revision: every metric family with, per data point,
 * its labels and the one sysfs file behind its value. A scrape then only opens those files (no directory
 * listing, no symlink resolution); the topology walk stays discovery's job.
 */
final class ScrapePlan {

    enum Parse { COUNTER, CODED, RATE }

    /**
     * A value read at scrape time from {@code dir/name}, or a constant ({@code dir == null}). The directory and
     * name strings are shared (one per port directory, one per distinct file name), and the file's path is
     * made when it is read: a big host has tens of thousands of points, and a path (or {@code File}) held per
     * point was most of the agent's live heap (issue 8, item 17).
     */
    record Point(Labels labels, String dir, String name, Parse parse, double scale, double constant) {

        /** The value, NaN when the file cannot be read or parsed (absent series). */
        double value(byte[] buf) {
            if (dir == null) {
                return constant;
            }
            String path = dir + '/' + name;
            if (parse == Parse.COUNTER) {
                return SysfsValues.readCounter(path, buf) * scale;
            }
            String line = SysfsValues.readLine(new File(path));
            OptionalDouble v = parse == Parse.CODED ? SysfsValues.parseCoded(line) : SysfsValues.parseRate(line);
            return v.isPresent() ? v.getAsDouble() * scale : Double.NaN;
        }
    }

    /** One metric family: a counter, a gauge, or an info metric (constant 1, labels only). */
    record Family(MetricMetadata metadata, Kind kind, List<Point> points) {

        enum Kind { COUNTER, GAUGE, INFO }

        MetricSnapshot read(byte[] buf) {
            return switch (kind) {
                case COUNTER -> counters(buf);
                case GAUGE -> gauges(buf);
                case INFO -> new InfoSnapshot(metadata, points.stream()
                        .map(p -> new InfoSnapshot.InfoDataPointSnapshot(p.labels())).toList());
            };
        }

        private MetricSnapshot counters(byte[] buf) {
            List<CounterDataPointSnapshot> values = new ArrayList<>(points.size());
            for (Point p : points) {
                double v = p.value(buf);
                if (!Double.isNaN(v)) {
                    values.add(new CounterDataPointSnapshot(v, p.labels(), null, 0L));
                }
            }
            return values.isEmpty() ? null : new CounterSnapshot(metadata, values);
        }

        private MetricSnapshot gauges(byte[] buf) {
            List<GaugeDataPointSnapshot> values = new ArrayList<>(points.size());
            for (Point p : points) {
                double v = p.value(buf);
                if (!Double.isNaN(v)) {
                    values.add(new GaugeDataPointSnapshot(v, p.labels(), null));
                }
            }
            return values.isEmpty() ? null : new GaugeSnapshot(metadata, values);
        }

        static MetricMetadata metadata(String name, String help, boolean bytes, boolean seconds) {
            return new MetricMetadata(name, help, bytes ? Unit.BYTES : seconds ? Unit.SECONDS : null);
        }
    }

    private final long revision;
    private final List<Family> families;

    ScrapePlan(long revision, List<Family> families) {
        this.revision = revision;
        this.families = List.copyOf(families);
    }

    long revision() {
        return revision;
    }

    int points() {
        return families.stream().mapToInt(f -> f.points().size()).sum();
    }

    /** Reads every planned file once; a family whose files all failed is left out. */
    MetricSnapshots read() {
        List<MetricSnapshot> out = new ArrayList<>(families.size());
        byte[] buf = new byte[64];
        for (Family f : families) {
            MetricSnapshot s = f.read(buf);
            if (s != null) {
                out.add(s);
            }
        }
        return new MetricSnapshots(out);
    }
}
