// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.OpenMetricsTextFormatWriter;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
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
        byte[] body = render(writer, collectors, gzip);
        exchange.getResponseHeaders().set("Content-Type", writer.getContentType());
        if (gzip) {
            exchange.getResponseHeaders().set("Content-Encoding", "gzip");
        }
        if (method.equals("HEAD")) {
            exchange.sendResponseHeaders(200, -1);
            return;
        }
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    ExpositionFormatWriter writerFor(String accept) {
        return accept != null && openMetrics.accepts(accept) ? openMetrics : text;
    }

    /** One bundle's clashing series cost it its series, not everyone's page (a 500). */
    static byte[] render(ExpositionFormatWriter writer, CollectorWhiteboard collectors, boolean gzip)
            throws IOException {
        try {
            return render(writer, collectors.scrape(), gzip);
        } catch (IllegalArgumentException clash) {
            return render(writer, collectors.scrapeWithoutClashes(clash), gzip);
        }
    }

    static byte[] render(ExpositionFormatWriter writer, MetricSnapshots snapshots, boolean gzip) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream(64 * 1024);
        if (gzip) {
            try (GZIPOutputStream zip = new GZIPOutputStream(buffer, 8192)) {
                writer.write(zip, snapshots);
            }
        } else {
            writer.write(buffer, snapshots);
        }
        return buffer.toByteArray();
    }

    private static boolean accepts(String header, String token) {
        if (header == null) {
            return false;
        }
        for (String part : header.split(",")) {
            if (part.split(";")[0].trim().equalsIgnoreCase(token)) {
                return true;
            }
        }
        return false;
    }
}
