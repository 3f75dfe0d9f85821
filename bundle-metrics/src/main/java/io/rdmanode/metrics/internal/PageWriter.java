// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Writes a page of snapshot families (written by client_java's writer) and streamed families (which write
 * themselves) in the order client_java would write them all: by Prometheus name. The snapshot families are few
 * and small (process, JVM, bundles); they are rendered first, run by run between the streamed ones, so that a
 * problem client_java finds in them shows before the first byte of the page.
 */
final class PageWriter {

    private static final byte[] EOF = "# EOF\n".getBytes(StandardCharsets.US_ASCII);

    private record Streamed(String name, StreamedFamilies from, int index) {
    }

    private PageWriter() {
    }

    /**
     * @return false, having written nothing, when a family name comes from two collectors: client_java's own
     *         merging (or refusal) then decides, on the whole page as snapshots
     */
    static boolean write(ExpositionFormatWriter writer, boolean openMetrics, MetricSnapshots others,
                         List<StreamedFamilies> streams, OutputStream target) throws IOException {
        List<Streamed> streamed = new ArrayList<>();
        for (StreamedFamilies s : streams) {
            for (int i = 0; i < s.size(); i++) {
                streamed.add(new Streamed(s.name(i), s, i));
            }
        }
        streamed.sort(Comparator.comparing(Streamed::name));
        Set<String> names = new HashSet<>();
        for (MetricSnapshot m : others) {
            if (!names.add(m.getMetadata().getPrometheusName())) {
                return false;
            }
        }
        for (Streamed s : streamed) {
            if (!names.add(s.name())) {
                return false;
            }
        }
        // runs.get(k): the snapshot families written before streamed.get(k); the last one after them all
        List<byte[]> runs = new ArrayList<>(streamed.size() + 1);
        List<MetricSnapshot> run = new ArrayList<>();
        int k = 0;
        for (MetricSnapshot m : others) {
            while (k < streamed.size() && streamed.get(k).name().compareTo(m.getMetadata().getPrometheusName()) < 0) {
                runs.add(render(writer, openMetrics, run));
                k++;
            }
            run.add(m);
        }
        while (runs.size() <= streamed.size()) {
            runs.add(render(writer, openMetrics, run));
        }
        TextSink sink = new TextSink(target);
        for (int i = 0; i < streamed.size(); i++) {
            sink.write(runs.get(i));
            Streamed s = streamed.get(i);
            s.from().write(s.index(), sink, openMetrics);
        }
        sink.write(runs.get(streamed.size()));
        if (openMetrics) {
            sink.write(EOF);
        }
        sink.flush();
        return true;
    }

    /** The run's families as client_java writes them, without OpenMetrics' {@code # EOF} (the page ends once). */
    private static byte[] render(ExpositionFormatWriter writer, boolean openMetrics, List<MetricSnapshot> run)
            throws IOException {
        if (run.isEmpty()) {
            return new byte[0];
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
        writer.write(out, new MetricSnapshots(run));
        run.clear();
        byte[] b = out.toByteArray();
        if (openMetrics && b.length >= EOF.length
                && Arrays.equals(b, b.length - EOF.length, b.length, EOF, 0, EOF.length)) {
            return Arrays.copyOf(b, b.length - EOF.length);
        }
        return b;
    }
}
