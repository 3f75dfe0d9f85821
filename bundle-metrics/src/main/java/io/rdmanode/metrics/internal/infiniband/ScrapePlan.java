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
import io.rdmanode.metrics.internal.StreamedFamilies;
import io.rdmanode.metrics.internal.TextSink;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What one scrape reads, worked out once per discovery revision: every metric family with, per data point,
 * its labels and the discovery value behind it ({@link RdmaCounter}), all read through prepared
 * {@link RdmaCounters.Reader}s, and the family's exposition text that does not change between scrapes. A scrape
 * then only asks discovery for those values (no directory listing, no symlink resolution here): discovery is the
 * one reader of {@code class/infiniband}. The values are read by {@link ValueReader} (slices in parallel) and
 * either become snapshots ({@link #read()}) or are written straight into the page ({@link #stream}).
 */
final class ScrapePlan {

    /**
     * A value: the {@code index}-th of the plan's values times {@code scale}, or a constant ({@code index < 0});
     * {@code labelText} is {@code labels} as exposition text, shared by the series of one port.
     */
    record Point(Labels labels, byte[] labelText, int index, double scale, double constant) {

        /** The value, NaN when discovery could not read or parse it (absent series). */
        double value(double[] values) {
            return index < 0 ? constant : values[index] * scale;
        }
    }

    /** One metric family: a counter, a gauge, or an info metric (constant 1, labels only). */
    record Family(MetricMetadata metadata, Kind kind, List<Point> points, byte[] seriesName, byte[] textHeader,
                  byte[] openMetricsHeader) {

        enum Kind { COUNTER, GAUGE, INFO }

        static Family of(MetricMetadata metadata, Kind kind, List<Point> points) {
            ExpositionText.Type type = ExpositionText.Type.valueOf(kind.name());
            return new Family(metadata, kind, points, ExpositionText.seriesName(metadata, type),
                    ExpositionText.textHeader(metadata, type), ExpositionText.openMetricsHeader(metadata, type));
        }

        MetricSnapshot read(double[] values) {
            return switch (kind) {
                case COUNTER -> counters(values);
                case GAUGE -> gauges(values);
                case INFO -> new InfoSnapshot(metadata, points.stream()
                        .map(p -> new InfoSnapshot.InfoDataPointSnapshot(p.labels())).toList());
            };
        }

        /** As {@link #read} would become text: a family without a value writes nothing. */
        void write(double[] values, TextSink out, boolean openMetrics) throws IOException {
            if (points.stream().allMatch(p -> Double.isNaN(p.value(values)))) {
                return;
            }
            out.write(openMetrics ? openMetricsHeader : textHeader);
            for (Point p : points) {
                double v = p.value(values);
                if (Double.isNaN(v)) {
                    continue;
                }
                out.write(seriesName);
                out.write(p.labelText());
                out.write(' ');
                if (kind == Kind.INFO) {
                    out.write('1');
                } else {
                    out.writeDouble(v);
                }
                out.write('\n');
            }
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
    /** In client_java's page order: by Prometheus name. */
    private final List<Family> families;
    private final ValueReader values;

    ScrapePlan(long revision, List<Family> families, ValueReader values) {
        this.revision = revision;
        List<Family> sorted = new ArrayList<>(families);
        sorted.sort(Comparator.comparing(f -> f.metadata().getPrometheusName()));
        this.families = List.copyOf(sorted);
        this.values = values;
    }

    long revision() {
        return revision;
    }

    int points() {
        return families.stream().mapToInt(f -> f.points().size()).sum();
    }

    /** Reads every planned value once; a family whose values all failed is left out. */
    MetricSnapshots read() {
        double[] v = values.read();
        List<MetricSnapshot> out = new ArrayList<>(families.size());
        for (Family f : families) {
            MetricSnapshot s = f.read(v);
            if (s != null) {
                out.add(s);
            }
        }
        return new MetricSnapshots(out);
    }

    /** Reads every planned value once, for the page to write: the same content as {@link #read()}. */
    StreamedFamilies stream() {
        double[] v = values.read();
        return new StreamedFamilies() {
            @Override
            public int size() {
                return families.size();
            }

            @Override
            public String name(int i) {
                return families.get(i).metadata().getPrometheusName();
            }

            @Override
            public void write(int i, TextSink out, boolean openMetrics) throws IOException {
                families.get(i).write(v, out, openMetrics);
            }
        };
    }
}
