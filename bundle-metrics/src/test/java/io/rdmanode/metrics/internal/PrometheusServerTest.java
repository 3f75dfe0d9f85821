// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricMetadata;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.metrics.internal.infiniband.InfinibandPortCollector;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Prometheus (Debian's {@code prometheus} binary, temporary config and data directory, 1 s scrape
 * interval) scrapes {@code /metrics} over HTTP, and a counter is queried back through its HTTP API.
 */
class PrometheusServerTest {

    @TempDir
    Path dir;

    @Test
    void prometheusScrapesTheEndpointAndAnswersQueriesForItsCounters() throws Exception {
        Path prometheus = ExternalTool.require("prometheus", "prometheus");
        RecordedHost host = RecordedHost.unpack("cx6-ib", dir.resolve("host"));
        HostSnapshot s = host.scan();
        try (ServedEndpoint served = new ServedEndpoint(Map.of())) {
            served.bind("infiniband", new InfinibandPortCollector(() -> s, host.counters(), "", "", true));
            served.bind("agent", new AgentCollector(new FixedFigures(
                    List.of(new AgentFigures.BundleFigure("metrics", "io.rdmanode.metrics", "0.1.0", "active")))));
            // another bundle's counter family, as the config bundle contributes rdma_agent_config_reloads
            served.bind("config", () -> new MetricSnapshots(new CounterSnapshot(
                    new MetricMetadata("rdma_agent_config_reloads", "Configuration file revisions"), List.of(
                    new CounterDataPointSnapshot(4, Labels.of("result", "applied"), null, 0L),
                    new CounterDataPointSnapshot(2, Labels.of("result", "rejected"), null, 0L)))));
            int apiPort = freePort();
            Path config = dir.resolve("prometheus.yml");
            Files.writeString(config, """
                    global: {scrape_interval: 1s, evaluation_interval: 1s}
                    scrape_configs:
                      - job_name: rdma-agent
                        static_configs: [{targets: ['127.0.0.1:%d']}]
                    """.formatted(served.port()));
            Path log = dir.resolve("prometheus.log");
            Process p = new ProcessBuilder(prometheus.toString(), "--config.file=" + config,
                    "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + apiPort)
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                String query = "rdma_agent_infiniband_port_data_received_bytes_total{device=\"mlx5_0\",port=\"1\"}";
                await("Prometheus answering " + query + " (log: " + log + ")").atMost(Duration.ofSeconds(90))
                        .pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                        .until(() -> value(apiPort, query), v -> v.equals("4938271560"));
                assertThat(value(apiPort, "up{job=\"rdma-agent\"}")).isEqualTo("1");
                assertThat(value(apiPort, "rdma_agent_config_reloads_total{result=\"rejected\"}")).isEqualTo("2");
                // info metrics (OpenMetrics type info) arrive as *_info series
                assertThat(value(apiPort, "rdma_agent_bundle_info{bundle=\"metrics\",state=\"active\"}")).isEqualTo("1");
                assertThat(value(apiPort, "rdma_agent_infiniband_info{device=\"mlx5_0\",hca_type=\"MT4119\"}"))
                        .isEqualTo("1");
                // Prometheus offers OpenMetrics first; the endpoint took it (the TYPE/UNIT lines parsed).
                assertThat(served.accepts()).anyMatch(a -> a.startsWith("application/openmetrics-text"));
            } finally {
                p.destroy();
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }

    /** The first sample value of an instant query, as Prometheus prints it. */
    private static String value(int port, String promql) throws IOException, InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + port + "/api/v1/query?query="
                + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5))
                .build(), HttpResponse.BodyHandlers.ofString()).body();
        JsonArray result = JsonParser.parseString(body).getAsJsonObject().getAsJsonObject("data")
                .getAsJsonArray("result");
        JsonObject first = result.get(0).getAsJsonObject();
        return first.getAsJsonArray("value").get(1).getAsString();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
