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
import java.util.Arrays;
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
     * A value as the planner finds it: the {@code index}-th of the plan's values times {@code scale}, or a constant
     * ({@code index < 0}); {@code labelText} is {@code labels} as exposition text, shared by the series of one port.
     * A {@link Family} keeps its points in arrays.
     */
    record Point(Labels labels, byte[] labelText, int index, double scale, double constant) {
    }

    /**
     * One metric family: a counter, a gauge, or an info metric (constant 1, labels only). Its points are kept as
     * parallel arrays, not as {@link Point} objects: a 1,032-device host's plan has 43,000 points, which as records
     * in lists held 1.9 MB of the agent's 64 MiB heap for as long as the plan lived, as arrays 0.5 MB (issue 23). A
     * point's value is {@code values[index[i]] * scale[i]}, or, for a negative index, {@code constants[-index[i] - 1]}.
     */
    static final class Family {

        enum Kind { COUNTER, GAUGE, INFO }

        private final MetricMetadata metadata;
        private final Kind kind;
        private final Labels[] labels;
        private final byte[][] labelTexts;
        private final int[] index;
        /** One scale for every point when they share it (every family the planner makes), else one per point. */
        private final double[] scale;
        private final double[] constants;
        private final byte[] seriesName;
        private final byte[] textHeader;
        private final byte[] openMetricsHeader;

        private Family(MetricMetadata metadata, Kind kind, List<Point> points) {
            this.metadata = metadata;
            this.kind = kind;
            int n = points.size();
            labels = new Labels[n];
            labelTexts = new byte[n][];
            index = new int[n];
            boolean oneScale = points.stream().filter(p -> p.index() >= 0).mapToDouble(Point::scale).distinct()
                    .count() <= 1;
            scale = new double[oneScale ? 1 : n];
            double[] c = new double[n];
            int constantCount = 0;
            for (int i = 0; i < n; i++) {
                Point p = points.get(i);
                labels[i] = p.labels();
                labelTexts[i] = p.labelText();
                if (p.index() >= 0) {
                    index[i] = p.index();
                    scale[oneScale ? 0 : i] = p.scale();
                } else {
                    c[constantCount] = p.constant();
                    index[i] = -++constantCount;
                }
            }
            constants = Arrays.copyOf(c, constantCount);
            ExpositionText.Type type = ExpositionText.Type.valueOf(kind.name());
            seriesName = ExpositionText.seriesName(metadata, type);
            textHeader = ExpositionText.textHeader(metadata, type);
            openMetricsHeader = ExpositionText.openMetricsHeader(metadata, type);
        }

        static Family of(MetricMetadata metadata, Kind kind, List<Point> points) {
            return new Family(metadata, kind, points);
        }

        MetricMetadata metadata() {
            return metadata;
        }

        int size() {
            return index.length;
        }

        /** The i-th point's value, NaN when discovery could not read or parse it (absent series). */
        double value(int i, double[] values) {
            int k = index[i];
            return k < 0 ? constants[-k - 1] : values[k] * scale[scale.length == 1 ? 0 : i];
        }

        MetricSnapshot read(double[] values) {
            return switch (kind) {
                case COUNTER -> counters(values);
                case GAUGE -> gauges(values);
                case INFO -> new InfoSnapshot(metadata, Arrays.stream(labels)
                        .map(InfoSnapshot.InfoDataPointSnapshot::new).toList());
            };
        }

        /** As {@link #read} would become text: a family without a value writes nothing. */
        void write(double[] values, TextSink out, boolean openMetrics) throws IOException {
            int n = size();
            int first = 0;
            while (first < n && Double.isNaN(value(first, values))) {
                first++;
            }
            if (first == n) {
                return;
            }
            out.write(openMetrics ? openMetricsHeader : textHeader);
            for (int i = first; i < n; i++) {
                double v = value(i, values);
                if (Double.isNaN(v)) {
                    continue;
                }
                out.write(seriesName);
                out.write(labelTexts[i]);
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
            List<CounterDataPointSnapshot> out = new ArrayList<>(size());
            for (int i = 0; i < size(); i++) {
                double v = value(i, values);
                if (!Double.isNaN(v)) {
                    out.add(new CounterDataPointSnapshot(v, labels[i], null, 0L));
                }
            }
            return out.isEmpty() ? null : new CounterSnapshot(metadata, out);
        }

        private MetricSnapshot gauges(double[] values) {
            List<GaugeDataPointSnapshot> out = new ArrayList<>(size());
            for (int i = 0; i < size(); i++) {
                double v = value(i, values);
                if (!Double.isNaN(v)) {
                    out.add(new GaugeDataPointSnapshot(v, labels[i], null));
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
        return families.stream().mapToInt(Family::size).sum();
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
