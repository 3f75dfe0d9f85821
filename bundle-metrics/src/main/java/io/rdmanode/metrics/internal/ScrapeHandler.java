// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.zip.GZIPOutputStream;

/**
 * Serves a registry's scrape. Content negotiation picks OpenMetrics 1.0 when the {@code Accept} header offers
 * {@code application/openmetrics-text} (Prometheus does), else the Prometheus text format 0.0.4. The protobuf
 * format is not offered: lib-prometheus leaves it out, and Prometheus falls back to text by itself. The body is
 * gzipped when the client accepts it, as node_exporter does.
 */
public final class ScrapeHandler implements HttpHandler {

    private final CollectorWhiteboard collectors;
    private final ExpositionFormatWriter openMetrics = OpenMetricsTextFormatWriter.create();
    private final ExpositionFormatWriter text = PrometheusTextFormatWriter.create();

    public ScrapeHandler(CollectorWhiteboard collectors) {
        this.collectors = collectors;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            exchange.getResponseHeaders().set("Allow", "GET, HEAD");
            exchange.sendResponseHeaders(405, -1);
            return;
        }
        ExpositionFormatWriter writer = writerFor(exchange.getRequestHeaders().getFirst("Accept"));
        boolean gzip = accepts(exchange.getRequestHeaders().getFirst("Accept-Encoding"), "gzip");
        exchange.getResponseHeaders().set("Content-Type", writer.getContentType());
        if (gzip) {
            exchange.getResponseHeaders().set("Content-Encoding", "gzip");
        }
        if (method.equals("HEAD")) {
            exchange.sendResponseHeaders(200, -1);
            return;
        }
        // Streamed (chunked), not rendered into one array first: a big host's page is megabytes (3.9 MB for
        // 8 PF x 128 VF), and holding it twice while growing a buffer set the agent's heap size (issue 8.17).
        try (LazyBody body = new LazyBody(() -> {
            exchange.sendResponseHeaders(200, 0);
            return exchange.getResponseBody();
        })) {
            write(writer, collectors, null, body, gzip);
        }
    }

    ExpositionFormatWriter writerFor(String accept) {
        return accept != null && openMetrics.accepts(accept) ? openMetrics : text;
    }

    /** One bundle's clashing series cost it its series, not everyone's page (a 500). */
    static byte[] render(ExpositionFormatWriter writer, CollectorWhiteboard collectors, boolean gzip)
            throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream(64 * 1024);
        try (LazyBody body = new LazyBody(() -> buffer)) {
            write(writer, collectors, null, body, gzip);
        }
        return buffer.toByteArray();
    }

    static byte[] render(ExpositionFormatWriter writer, MetricSnapshots snapshots, boolean gzip) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream(64 * 1024);
        try (LazyBody body = new LazyBody(() -> buffer)) {
            write(writer, null, snapshots, body, gzip);
        }
        return buffer.toByteArray();
    }

    /**
     * Writes {@code snapshots}, or the whiteboard's scrape. client_java merges same-name families before it
     * writes a byte, so a clash found there can still become the page without the clashing collector: nothing
     * has reached {@code body} yet.
     */
    private static void write(ExpositionFormatWriter writer, CollectorWhiteboard collectors,
                              MetricSnapshots snapshots, LazyBody body, boolean gzip) throws IOException {
        // The buffer keeps GZIP's header back until there is a body, for the same reason.
        OutputStream target = gzip ? new GZIPOutputStream(new BufferedOutputStream(body, 8192), 8192) : body;
        try {
            if (snapshots != null) {
                writer.write(target, snapshots);
            } else if (!writeStreamed(writer, collectors, target)) {
                writer.write(target, collectors.scrape());
            }
        } catch (IllegalArgumentException clash) {
            if (collectors == null || body.started()) {
                throw clash;
            }
            writer.write(target, collectors.scrapeWithoutClashes(clash));
        }
        target.close();
    }

    /**
     * The page with the big collectors' families written straight from what they read (a 1,032-device host's
     * 43,000 RDMA series would otherwise become as many snapshot objects, then text through a {@code Writer}).
     * False, with nothing written, when there is no such collector or a family name comes from two collectors.
     */
    private static boolean writeStreamed(ExpositionFormatWriter writer, CollectorWhiteboard collectors,
                                         OutputStream target) throws IOException {
        StreamedScrape scrape = new StreamedScrape();
        MetricSnapshots others = collectors.scrape(scrape);
        List<StreamedFamilies> streams = scrape.streams();
        return !streams.isEmpty() && PageWriter.write(writer, writer instanceof OpenMetricsTextFormatWriter, others,
                streams, target);
    }

    /** Opens its target on the first byte written (for HTTP: sends the 200 and its headers then). */
    private static final class LazyBody extends OutputStream {

        interface Target {
            OutputStream open() throws IOException;
        }

        private final Target target;
        private OutputStream out;

        LazyBody(Target target) {
            this.target = target;
        }

        boolean started() {
            return out != null;
        }

        private OutputStream out() throws IOException {
            if (out == null) {
                out = target.open();
            }
            return out;
        }

        @Override
        public void write(int b) throws IOException {
            out().write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out().write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            if (out != null) {
                out.flush();
            }
        }

        @Override
        public void close() throws IOException {
            out().close();
        }
    }

    /**
     * Whether an {@code Accept-Encoding} value names {@code token} with a weight above 0 ({@code *} is not taken
     * for it). A {@code ;q=0} is a refusal (RFC 9110 12.5.3); it was read as acceptance, and the page came gzipped.
     */
    static boolean accepts(String header, String token) {
        if (header == null) {
            return false;
        }
        for (String part : header.split(",")) {
            String[] fields = part.split(";");
            if (fields[0].trim().equalsIgnoreCase(token)) {
                return weight(fields) > 0;
            }
        }
        return false;
    }

    private static double weight(String[] fields) {
        for (int i = 1; i < fields.length; i++) {
            String p = fields[i].trim();
            if (p.length() > 2 && (p.charAt(0) == 'q' || p.charAt(0) == 'Q') && p.charAt(1) == '=') {
                try {
                    return Double.parseDouble(p.substring(2).trim());
                } catch (NumberFormatException e) {
                    return 0;                       // a weight that cannot be read accepts nothing
                }
            }
        }
        return 1;
    }
}
