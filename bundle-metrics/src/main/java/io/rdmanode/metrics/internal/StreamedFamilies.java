// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import java.io.IOException;

/**
 * Metric families already read, which write their own text straight into the page: no snapshot object per
 * data point and no second pass through client_java's writer. What they write is what client_java's
 * {@code PrometheusTextFormatWriter} and {@code OpenMetricsTextFormatWriter} would write for the same families.
 */
public interface StreamedFamilies {

    /** How many families there are. */
    int size();

    /** The {@code i}-th family's Prometheus name (without {@code _total} or {@code _info}), ascending in {@code i}. */
    String name(int i);

    /** Writes the {@code i}-th family: its HELP/TYPE (and UNIT) lines and its series; nothing for one without. */
    void write(int i, TextSink out, boolean openMetrics) throws IOException;
}
