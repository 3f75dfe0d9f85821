// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import java.nio.charset.StandardCharsets;

/**
 * The fixed parts of a family's exposition text, made once per plan: the HELP/TYPE/UNIT lines, the series name
 * and the {@code {label="value",...}} of each label set. Byte for byte what client_java 1.8's
 * {@code PrometheusTextFormatWriter} (0.0.4) and {@code OpenMetricsTextFormatWriter} (1.0) write for the legacy
 * names used here: the text format names a counter's HELP/TYPE {@code <name>_total} and an info metric's
 * {@code <name>_info} (type gauge) and has no UNIT; OpenMetrics names the family without suffix.
 */
final class ExpositionText {

    enum Type { COUNTER, GAUGE, INFO }

    private ExpositionText() {
    }

    /** The name every series of the family carries. */
    static byte[] seriesName(MetricMetadata m, Type type) {
        return ascii(m.getPrometheusName() + switch (type) {
            case COUNTER -> "_total";
            case GAUGE -> "";
            case INFO -> "_info";
        });
    }

    static byte[] textHeader(MetricMetadata m, Type type) {
        String name = new String(seriesName(m, type), StandardCharsets.US_ASCII);
        StringBuilder b = new StringBuilder();
        if (m.getHelp() != null) {
            b.append("# HELP ").append(name).append(' ').append(escape(m.getHelp(), false)).append('\n');
        }
        b.append("# TYPE ").append(name).append(' ').append(type == Type.COUNTER ? "counter" : "gauge").append('\n');
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] openMetricsHeader(MetricMetadata m, Type type) {
        String name = m.getPrometheusName();
        StringBuilder b = new StringBuilder();
        b.append("# TYPE ").append(name).append(' ').append(switch (type) {
            case COUNTER -> "counter";
            case GAUGE -> "gauge";
            case INFO -> "info";
        }).append('\n');
        if (m.getUnit() != null) {
            b.append("# UNIT ").append(name).append(' ').append(m.getUnit()).append('\n');
        }
        if (m.getHelp() != null) {
            b.append("# HELP ").append(name).append(' ').append(escape(m.getHelp(), true)).append('\n');
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** {@code {a="x",b="y"}}, labels in {@link Labels}' (sorted) order; nothing for no labels. */
    static byte[] labels(Labels labels) {
        if (labels.isEmpty()) {
            return new byte[0];
        }
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < labels.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append(labels.getPrometheusName(i)).append("=\"").append(escape(labels.getValue(i), true)).append('"');
        }
        return b.append('}').toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Backslash and newline escaped, and the double quote where {@code quote} (label values, OpenMetrics HELP). */
    private static String escape(String s, boolean quote) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '"' -> b.append(quote ? "\\\"" : "\"");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
