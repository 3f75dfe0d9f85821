// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.sun.net.httpserver.HttpExchange;
import io.rdmanode.health.HealthCheck.Kind;
import io.rdmanode.health.HealthStatus;
import io.rdmanode.health.HttpEndpoint;
import io.rdmanode.health.StatusSection;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The real server class on an ephemeral port, outside OSGi, with the framework replaced by fixed sources. */
class HealthHttpServerTest {

    private static final Instant STARTED = Instant.parse("2026-11-22T10:00:00Z");
    private static final String PLUGIN = "io.rdmanode.deviceplugin.internal.SharedPoolDevicePlugin";

    private final HttpClient client = HttpClient.newHttpClient();
    private final FixedHealthSources sources =
            new FixedHealthSources(new AgentInfo("1.2.3", STARTED, "17.0.15", 4242));
    private HealthHttpServer server;

    /** The defaults, with the cached health refreshed every 50 ms so that tests see a change quickly. */
    static final HttpSettings SETTINGS = HttpSettings.DEFAULTS.withChecks(CheckRunner.DEFAULT_TIMEOUT,
            Duration.ofMillis(50));

    @BeforeEach
    void start() {
        sources.checks.add(FakeCheck.ok("config", Kind.ALIVE, "revision 3"));
        sources.checks.add(FakeCheck.ok("discovery", Kind.READY, "sysfs: 2 RDMA devices"));
        sources.bundles.add(new BundleInfo(0, "org.apache.felix.framework", null, "7.0.5", "ACTIVE"));
        sources.bundles.add(new BundleInfo(7, "io.rdmanode.health", "health", "0.1.0.SNAPSHOT", "ACTIVE"));
        sources.components.add(new ComponentInfo(PLUGIN, "io.rdmanode.deviceplugin", "ACTIVE", "active", true,
                false));
        server = new HealthHttpServer(new InetSocketAddress("127.0.0.1", 0), SETTINGS, sources,
                Clock.fixed(STARTED.plusSeconds(90), ZoneOffset.UTC));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void bindsAnEphemeralPortAndReportsItsUrl() {
        assertThat(server.port()).isPositive();
        assertThat(server.uri()).isEqualTo(URI.create("http://127.0.0.1:" + server.port()));
    }

    @Test
    void healthzAnswersOkWhileEveryAliveCheckPasses() throws Exception {
        sources.checks.add(new FakeCheck("discovery-rescan", Kind.READY, () -> HealthStatus.failing("ignored")));

        HttpResponse<String> response = get("/healthz");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("ok\n");
        assertThat(response.headers().firstValue("Content-Type")).hasValue("text/plain; charset=utf-8");
        assertThat(get("/healthz?verbose").body()).isEqualTo("[+]config ok: revision 3\nhealthz check passed\n");
    }

    /**
     * Felix's health-check model (issue 19), now behind the cache (issue 21): checks run on their own threads, a
     * refresh waits for them within a bound, and one that hangs is reported as timed out; the next refresh waits
     * for the same run (no second thread) and, once the check answers, reports its result again. Requests only
     * read the cached result.
     */
    @Test
    void aHungCheckIsReportedAsTimedOutWithinTheBoundAndDoesNotHoldTheHttpThread() throws Exception {
        server.close();
        server = new HealthHttpServer(new InetSocketAddress("127.0.0.1", 0),
                SETTINGS.withThreads(1).withChecks(Duration.ofMillis(300), Duration.ofMillis(50)), sources,
                Clock.fixed(STARTED.plusSeconds(90), ZoneOffset.UTC));
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        sources.checks.add(new FakeCheck("stuck", Kind.ALIVE, () -> {
            calls.incrementAndGet();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return HealthStatus.ok("answered at last");
        }));
        await().atMost(Duration.ofSeconds(5)).until(() -> get("/healthz").statusCode() == 503);

        for (int i = 0; i < 3; i++) {                            // one HTTP thread: each request must come back
            long start = System.nanoTime();
            HttpResponse<String> response = get("/healthz");
            long ms = (System.nanoTime() - start) / 1_000_000;

            assertThat(ms).as("answered from the cache, well within the check bound").isLessThan(2_000);
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.body()).contains("[+]config ok: revision 3")
                    .contains("[-]stuck failed: timed out after 300 ms (still running)");
        }
        assertThat(get("/readyz").statusCode()).as("readiness has no hung check").isEqualTo(200);
        assertThat(calls.get()).as("the hung run is awaited again, not started again").isEqualTo(1);

        release.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> get("/healthz").statusCode() == 200);
    }

    @Test
    void healthzAnswers503NamingTheFailingAliveCheck() throws Exception {
        sources.checks.add(new FakeCheck("listandwatch", Kind.ALIVE,
                () -> HealthStatus.failing("no check-in for 30000 ms")));
        await().atMost(Duration.ofSeconds(5)).until(() -> get("/healthz").statusCode() == 503);

        HttpResponse<String> response = get("/healthz");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.body()).isEqualTo("""
                [+]config ok: revision 3
                [-]listandwatch failed: no check-in for 30000 ms
                healthz check failed
                """);
    }

    @Test
    void readyzPassesWithReadyChecksAndActiveComponents() throws Exception {
        HttpResponse<String> response = get("/readyz");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("""
                [+]discovery ok: sysfs: 2 RDMA devices
                [+]component:%s ok: active (bundle io.rdmanode.deviceplugin)
                readyz check passed
                """.formatted(PLUGIN));
    }

    @Test
    void readyzFailsNamingTheInactiveComponentAndItsCause() throws Exception {
        sources.components.add(new ComponentInfo("io.rdmanode.cni.internal.CniServer", "io.rdmanode.cni",
                "UNSATISFIED_REFERENCE", "unsatisfied reference discovery (io.rdmanode.discovery.RdmaDiscovery)",
                true, true));
        sources.components.add(new ComponentInfo("io.rdmanode.freeflow.internal.Router", "io.rdmanode.freeflow",
                "UNSATISFIED_CONFIGURATION", "waiting for configuration io.rdmanode.freeflow", false, false));
        await().atMost(Duration.ofSeconds(5)).until(() -> get("/readyz").statusCode() == 503);

        HttpResponse<String> response = get("/readyz");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.body()).contains("[-]component:io.rdmanode.cni.internal.CniServer failed: unsatisfied"
                        + " reference discovery (io.rdmanode.discovery.RdmaDiscovery) (bundle io.rdmanode.cni)\n")
                .doesNotContain("freeflow")
                .endsWith("readyz check failed\n");
    }

    @Test
    void statusServesTheDocumentAsPrettyJson() throws Exception {
        sources.components.add(new ComponentInfo("io.rdmanode.freeflow.internal.Router", "io.rdmanode.freeflow",
                "UNSATISFIED_CONFIGURATION", "waiting for configuration io.rdmanode.freeflow", false, false));
        server.addSection(section("discovery", Map.of("devices", 2)), "io.rdmanode.discovery service.id=12");

        HttpResponse<String> response = get("/status");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(response.body()).startsWith("{\n  \"agent\": {\n    \"version\": \"1.2.3\",\n");
        JsonObject status = JsonParser.parseString(response.body()).getAsJsonObject();
        assertThat(status.keySet()).containsExactly("agent", "ready", "started", "health", "bundles", "components", "http",
                "discovery");
        assertThat(status.getAsJsonObject("http").get("maxConnections").getAsInt()).isEqualTo(512);
        JsonObject agent = status.getAsJsonObject("agent");
        assertThat(agent.get("startedAt").getAsString()).isEqualTo("2026-11-22T10:00:00Z");
        assertThat(agent.get("uptimeSeconds").getAsLong()).isEqualTo(90);
        assertThat(agent.get("java").getAsString()).isEqualTo("17.0.15");
        assertThat(agent.get("pid").getAsLong()).isEqualTo(4242);
        assertThat(status.get("ready").getAsBoolean()).isTrue();
        assertThat(status.getAsJsonArray("health").get(0).toString())
                .isEqualTo("{\"name\":\"config\",\"kind\":\"ALIVE\",\"ok\":true,\"message\":\"revision 3\"}");
        JsonArray bundles = status.getAsJsonArray("bundles");
        assertThat(bundles.get(0).getAsJsonObject().get("agentBundle").isJsonNull()).isTrue();
        assertThat(bundles.get(1).toString()).isEqualTo("{\"id\":7,\"symbolicName\":\"io.rdmanode.health\","
                + "\"agentBundle\":\"health\",\"version\":\"0.1.0.SNAPSHOT\",\"state\":\"ACTIVE\"}");
        assertThat(status.getAsJsonArray("components").get(1).toString()).isEqualTo(
                "{\"name\":\"io.rdmanode.freeflow.internal.Router\",\"bundle\":\"io.rdmanode.freeflow\","
                        + "\"state\":\"UNSATISFIED_CONFIGURATION\",\"detail\":\"waiting for configuration"
                        + " io.rdmanode.freeflow\"}");
        assertThat(status.getAsJsonObject("discovery").get("devices").getAsInt()).isEqualTo(2);
    }

    @Test
    void statusSurvivesAThrowingSectionAndRefusesBuiltInOrTakenNames() throws Exception {
        server.addSection(section("config", () -> {
            throw new IllegalStateException("no configuration applied yet");
        }), "io.rdmanode.config service.id=3");
        server.addSection(section("ready", Map.of("hijacked", true)), "io.rdmanode.evil service.id=4");
        server.addSection(section("config", Map.of("second", true)), "io.rdmanode.other service.id=5");

        JsonObject status = JsonParser.parseString(get("/status").body()).getAsJsonObject();

        assertThat(status.get("ready").getAsBoolean()).isTrue();
        assertThat(status.getAsJsonObject("config").toString())
                .isEqualTo("{\"error\":\"no configuration applied yet\"}");
    }

    @Test
    void aFailingSourceAnswers500WithOneLine() throws Exception {
        sources.bundlesFailure = new IllegalStateException("framework stopping");

        HttpResponse<String> response = get("/status");

        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(response.body())
                .isEqualTo("internal error on /status: IllegalStateException: framework stopping\n");
        assertThat(get("/healthz").statusCode()).isEqualTo(200);
    }

    @Test
    void endpointsComeAndGoWhileServing() throws Exception {
        HttpEndpoint metrics = endpoint("/metrics", "rdma_agent_up 1\n");
        HttpEndpoint rival = endpoint("/metrics", "rival 1\n");

        server.addEndpoint(metrics, "io.rdmanode.metrics service.id=20");
        server.addEndpoint(rival, "io.rdmanode.rival service.id=21");
        assertThat(get("/metrics").body()).isEqualTo("rdma_agent_up 1\n");
        assertThat(get("/metrics/extra").statusCode()).isEqualTo(404);

        server.removeEndpoint(metrics);
        assertThat(get("/metrics").body()).isEqualTo("rival 1\n");

        server.removeEndpoint(rival);
        assertThat(get("/metrics").statusCode()).isEqualTo(404);
    }

    /** Many chunks, written in odd sizes, arrive as written (each chunk's array is filled again once sent). */
    @Test
    void aLongStreamedBodyArrivesIntactChunkAfterChunk() throws Exception {
        StringBuilder expected = new StringBuilder();
        for (int i = 0; expected.length() < 10 * NettyHttpExchange.CHUNK + 123; i++) {
            expected.append("series_").append(i).append("{device=\"mlx5_").append(i % 97).append("\"} ")
                    .append(i * 31L).append('\n');
        }
        byte[] page = expected.toString().getBytes(StandardCharsets.US_ASCII);
        server.addEndpoint(endpoint("/metrics", exchange -> {
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                for (int off = 0, n = 1; off < page.length; off += n, n = n * 7 % 9001 + 1) {
                    out.write(page, off, Math.min(n, page.length - off));
                }
            }
        }), "io.rdmanode.metrics service.id=20");

        for (int round = 0; round < 3; round++) {
            assertThat(get("/metrics").body()).isEqualTo(expected.toString());
        }
    }

    /**
     * More pipelined requests than the connection holds: the one in flight and the ones held are answered, then the
     * connection closes. It closed at once, answering none of them and saying nothing.
     */
    @Test
    void pipelinedPastTheBoundTheHeldOnesAreAnsweredThenTheConnectionCloses() throws Exception {
        int sent = HttpConnection.MAX_PIPELINED + 4;
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET /status HTTP/1.1\r\nHost: agent\r\n\r\n".repeat(sent)
                    .getBytes(StandardCharsets.ISO_8859_1));
            String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            int answered = all.split("HTTP/1.1 200 ", -1).length - 1;
            assertThat(answered).isEqualTo(HttpConnection.MAX_PIPELINED + 1);
        }
        assertThat(((Number) server.stats().get("pipelineOverflowsTotal")).longValue()).isEqualTo(1);
    }

    /** A scraper that hangs up mid-page is the client's doing: no WARN with a stack trace per hang-up. */
    @Test
    void aClientThatHangsUpMidPageIsNotLoggedAsAnEndpointFailure() throws Exception {
        byte[] page = new byte[8 << 20];
        java.util.Arrays.fill(page, (byte) 'x');
        server.addEndpoint(endpoint("/metrics", exchange -> {
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(page);
            }
        }), "io.rdmanode.metrics service.id=20");
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            for (int i = 0; i < 5; i++) {
                try (java.net.Socket s = new java.net.Socket("127.0.0.1", server.port())) {
                    s.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: agent\r\n\r\n"
                            .getBytes(StandardCharsets.ISO_8859_1));
                    s.getInputStream().readNBytes(10);
                    s.setSoLinger(true, 0);                       // a reset, as a scraper's timeout gives
                }
            }
            await().atMost(java.time.Duration.ofSeconds(10)).until(() -> ((Number) server.stats()
                    .get("connections")).intValue() == 0);
            Thread.sleep(200);
        } finally {
            System.setErr(err);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8)).doesNotContain("http endpoint failed");
        assertThat(get("/metrics").body()).hasSize(page.length);
    }

    @Test
    void anEndpointCannotTakeABuiltInPath() throws Exception {
        server.addEndpoint(endpoint("/healthz", "hijacked\n"), "io.rdmanode.evil service.id=9");
        server.addEndpoint(endpoint("metrics", "relative\n"), "io.rdmanode.evil service.id=10");

        assertThat(get("/healthz").body()).isEqualTo("ok\n");
        assertThat(get("/metrics").statusCode()).isEqualTo(404);
    }

    @Test
    void aThrowingEndpointAnswers500() throws Exception {
        server.addEndpoint(endpoint("/broken", exchange -> {
            throw new IllegalStateException("registry closed");
        }), "io.rdmanode.metrics service.id=20");

        HttpResponse<String> response = get("/broken");

        assertThat(response.statusCode()).isEqualTo(500);
        assertThat(response.body()).isEqualTo("internal error on /broken: IllegalStateException: registry closed\n");
    }

    @Test
    void unknownPathsAre404() throws Exception {
        assertThat(get("/").statusCode()).isEqualTo(404);
        assertThat(get("/nope").statusCode()).isEqualTo(404);
        assertThat(get("/statusx").statusCode()).isEqualTo(404);
        assertThat(get("/status/extra").body()).isEqualTo("not found: /status/extra\n");
    }

    @Test
    void builtInPathsAllowOnlyGetAndHead() throws Exception {
        HttpResponse<String> post = send(HttpRequest.newBuilder(server.uri().resolve("/readyz"))
                .POST(HttpRequest.BodyPublishers.ofString("x")));
        HttpResponse<String> head = send(HttpRequest.newBuilder(server.uri().resolve("/status"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()));

        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
        assertThat(post.body()).isEqualTo("method POST not allowed on /readyz\n");
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(head.body()).isEmpty();
    }

    @Test
    void servesOnNamedThreadsAndStopsPromptly() throws Exception {
        String[] thread = new String[1];
        server.addEndpoint(endpoint("/thread", exchange -> {
            thread[0] = Thread.currentThread().getName();
            exchange.sendResponseHeaders(204, -1);
        }), "test");
        get("/thread");
        assertThat(thread[0]).startsWith("rdma-agent-health-http-");

        long start = System.nanoTime();
        server.close();
        assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(1000);
        server = new HealthHttpServer(new InetSocketAddress("127.0.0.1", server.port()), 1, sources, Clock.systemUTC());
        assertThat(get("/healthz").statusCode()).as("same port bound again at once").isEqualTo(200);
    }

    private HttpResponse<String> get(String pathAndQuery) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(server.uri().resolve(pathAndQuery)).GET());
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private static StatusSection section(String name, Object status) {
        return section(name, () -> status);
    }

    private static StatusSection section(String name, java.util.function.Supplier<Object> status) {
        return new StatusSection() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Object status() {
                return status.get();
            }
        };
    }

    private static HttpEndpoint endpoint(String path, String body) {
        return endpoint(path, exchange -> {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
            exchange.sendResponseHeaders(200, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
    }

    private interface Handler {
        void handle(HttpExchange exchange) throws IOException;
    }

    private static HttpEndpoint endpoint(String path, Handler handler) {
        return new HttpEndpoint() {
            @Override
            public String path() {
                return path;
            }

            @Override
            public void handle(HttpExchange exchange) throws IOException {
                handler.handle(exchange);
            }
        };
    }
}
