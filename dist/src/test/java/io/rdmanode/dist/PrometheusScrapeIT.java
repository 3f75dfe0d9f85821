// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.google.gson.JsonArray;
import com.google.gson.JsonParser;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The way an operator monitors the agent: Debian's Prometheus scrapes the running distribution (demo host:
 * the recorded ConnectX-5 SR-IOV node with its two shared pools) and answers queries for its series, and
 * {@code promtool check metrics} finds nothing wrong with the agent's whole {@code /metrics} page.
 */
class PrometheusScrapeIT {

    static final Path DIST = Path.of(System.getProperty("dist.dir", "target/rdma-node-agent"));
    static final HttpClient HTTP = HttpClient.newHttpClient();

    @TempDir
    Path temp;

    @Test
    void prometheusScrapesTheRunningAgentAndPromtoolAcceptsItsPage() throws Exception {
        Path prometheus = require("prometheus");
        Path promtool = require("promtool");
        try (AgentProcess agent = AgentProcess.start(DIST, temp.resolve("unused"),
                Map.of("RDMA_AGENT_HTTP_PORT", "0"), "--demo")) {
            String base = agent.awaitDemoBanner(Duration.ofSeconds(60)).base();

            Path page = temp.resolve("metrics.txt");
            Files.writeString(page, HTTP.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
            Process check = new ProcessBuilder(promtool.toString(), "check", "metrics").redirectInput(page.toFile())
                    .redirectErrorStream(true).start();
            String findings = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(check.waitFor()).as("promtool check metrics:%n%s", findings).isZero();
            assertThat(findings).as("promtool findings").isBlank();

            int apiPort = freePort();
            Path config = temp.resolve("prometheus.yml");
            Files.writeString(config, """
                    global: {scrape_interval: 1s, evaluation_interval: 1s}
                    scrape_configs:
                      - job_name: rdma-node-agent
                        static_configs: [{targets: ['%s']}]
                    """.formatted(URI.create(base).getAuthority()));
            Process server = new ProcessBuilder(prometheus.toString(), "--config.file=" + config,
                    "--storage.tsdb.path=" + temp.resolve("data"), "--web.listen-address=127.0.0.1:" + apiPort)
                    .redirectErrorStream(true).redirectOutput(temp.resolve("prometheus.log").toFile()).start();
            try {
                String up = "up{job=\"rdma-node-agent\"}";
                awaitValue(apiPort, up, "1", Duration.ofSeconds(90));
                // 8 VFs of PF0 plus PF0 itself: 9 RoCE ports on NUMA 0's card, each with its byte counter.
                assertThat(value(apiPort, "count(rdma_agent_infiniband_port_data_received_bytes_total"
                        + "{device=~\"mlx5_[0-8]\"})")).isEqualTo("9");
                assertThat(value(apiPort, "rdma_agent_config_reloads_total{result=\"applied\"}")).isEqualTo("1");
                assertThat(value(apiPort, "rdma_agent_deviceplugin_devices{resource=\"rdma/hca_pf\","
                        + "health=\"healthy\"}")).isEqualTo("100");
                assertThat(value(apiPort, "rdma_agent_discovery_devices")).isEqualTo("18");
            } finally {
                server.destroy();
                if (!server.waitFor(10, TimeUnit.SECONDS)) {
                    server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
            assertThat(agent.terminate(Duration.ofSeconds(15))).isZero();
        }
    }


    /** Prometheus needs a scrape or two; an unanswered query (still starting) counts as "not yet". */
    private static void awaitValue(int port, String promql, String expected, Duration timeout) {
        Awaitility.await(promql).atMost(timeout).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .until(() -> value(port, promql), Matchers.equalTo(expected));
    }

    /** The first sample's value of an instant query, as Prometheus prints it. */
    private static String value(int port, String promql) throws IOException, InterruptedException {
        URI uri = URI.create("http://127.0.0.1:" + port + "/api/v1/query?query="
                + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        String body = HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        JsonArray result = JsonParser.parseString(body).getAsJsonObject().getAsJsonObject("data")
                .getAsJsonArray("result");
        if (result.isEmpty()) {
            throw new IllegalStateException("no sample for " + promql);
        }
        return result.get(0).getAsJsonObject().getAsJsonArray("value").get(1).getAsString();
    }

    /** On CI (and as root) a missing binary is a setup error; elsewhere the test is skipped, saying why. */
    private static Path require(String binary) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(dir, binary);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        String message = binary + " not found: apt-get install prometheus (.ci/run does)";
        if (System.getenv("CI") != null || "root".equals(System.getProperty("user.name"))) {
            fail(message);
        }
        Assumptions.abort(message);
        return null;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
