// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.metrics.internal.infiniband.InfinibandPortCollector;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Content negotiation and transport of {@code /metrics}, over real HTTP. */
class ScrapeHandlerTest {

    @TempDir
    Path dir;

    private ServedEndpoint served;
    private final HttpClient client = HttpClient.newHttpClient();

    @BeforeEach
    void serve() throws IOException {
        RecordedHost host = RecordedHost.unpack("cx6-ib", dir);
        HostSnapshot s = host.scan();
        served = new ServedEndpoint(Map.of());
        served.bind("infiniband", new InfinibandPortCollector(() -> s, host.counters(), "", "", true));
    }

    @AfterEach
    void stop() {
        served.close();
    }

    private HttpResponse<byte[]> get(String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(served.uri());
        if (headers.length > 0) {
            b.headers(headers);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void servesPrometheusTextByDefault() throws Exception {
        HttpResponse<byte[]> r = get();
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(new String(r.body(), StandardCharsets.UTF_8))
                .contains("# TYPE rdma_agent_infiniband_port_data_received_bytes_total counter\n")
                .doesNotContain("# EOF");
    }

    @Test
    void servesOpenMetricsWhenTheScraperAsksForIt() throws Exception {
        HttpResponse<byte[]> r = get("Accept", "application/openmetrics-text;version=1.0.0,"
                + "application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1");
        assertThat(r.headers().firstValue("Content-Type"))
                .hasValue("application/openmetrics-text; version=1.0.0; charset=utf-8");
        String body = new String(r.body(), StandardCharsets.UTF_8);
        assertThat(body).contains("# TYPE rdma_agent_infiniband_port_data_received_bytes counter\n",
                "# UNIT rdma_agent_infiniband_port_data_received_bytes bytes\n",
                "rdma_agent_infiniband_port_data_received_bytes_total{device=\"mlx5_0\",port=\"1\"} 4.93827156E9\n")
                .endsWith("# EOF\n");
    }

    @Test
    void protobufIsNotOfferedSoAProtobufScraperGetsText() throws Exception {
        HttpResponse<byte[]> r = get("Accept", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;"
                + "encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
    }

    @Test
    void gzipsWhenAccepted() throws Exception {
        HttpResponse<byte[]> r = get("Accept-Encoding", "gzip");
        assertThat(r.headers().firstValue("Content-Encoding")).hasValue("gzip");
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(r.body()))) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).contains("rdma_agent_infiniband_state_id");
        }
    }

    /** A weight of 0 refuses gzip (RFC 9110): the page came gzipped anyway (hostile-client probe). */
    @Test
    void doesNotGzipWhenGzipIsRefused() throws Exception {
        HttpResponse<byte[]> r = get("Accept-Encoding", "gzip;q=0, identity");
        assertThat(r.headers().firstValue("Content-Encoding")).isEmpty();
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains("rdma_agent_infiniband_state_id");
        assertThat(ScrapeHandler.accepts("identity, gzip; q=0.5", "gzip")).isTrue();
        assertThat(ScrapeHandler.accepts("GZIP;Q=0.0", "gzip")).isFalse();
        assertThat(ScrapeHandler.accepts("*", "gzip")).isFalse();
    }

    /** Streamed as it is written, not rendered into one array first: a big host's page is megabytes. */
    @Test
    void streamsThePageChunked() throws Exception {
        HttpResponse<byte[]> r = get();
        assertThat(r.headers().firstValue("Content-Length")).isEmpty();
        assertThat(r.headers().firstValue("Transfer-Encoding")).hasValue("chunked");
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains("rdma_agent_infiniband_state_id");
    }

    @Test
    void answersHeadWithoutABody() throws Exception {
        HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(served.uri())
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(r.body()).isEmpty();
    }

    @Test
    void refusesOtherMethods() throws Exception {
        HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(served.uri())
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).isEqualTo(405);
    }
}
