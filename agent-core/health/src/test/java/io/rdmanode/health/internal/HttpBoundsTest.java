// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import io.rdmanode.health.HealthCheck.Kind;
import io.rdmanode.health.HttpEndpoint;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The server's bounds (issue 21) through the real port: head size, connection count, bodies, busy handlers. */
class HttpBoundsTest {

    private final FixedHealthSources sources =
            new FixedHealthSources(new AgentInfo("1.2.3", Instant.now(), "17", 1));
    private final List<Socket> sockets = new ArrayList<>();
    private HealthHttpServer server;

    private void start(HttpSettings settings) {
        sources.checks.add(FakeCheck.ok("config", Kind.ALIVE, "revision 3"));
        server = new HealthHttpServer(new InetSocketAddress("127.0.0.1", 0), settings, sources, Clock.systemUTC());
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket socket : sockets) {
            socket.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void anOversizeHeaderIsAnswered431AndTheConnectionClosed() throws Exception {
        start(HealthHttpServerTest.SETTINGS);
        try (Socket socket = RawHttp.connect(server.port())) {
            RawHttp.send(socket, "GET /healthz HTTP/1.1\r\nHost: agent\r\nX-Big: " + "a".repeat(9_000) + "\r\n\r\n");
            RawHttp.Answer answer = RawHttp.parse(RawHttp.readAll(socket.getInputStream()));

            assertThat(answer.code()).isEqualTo(431);
            assertThat(answer.body()).isEqualTo("request header fields larger than 8192 bytes\n");
            assertThat(answer.head()).containsIgnoringCase("connection: close");
        }
        assertThat(RawHttp.get(server.port(), "/" + "x".repeat(9_000)).code()).isEqualTo(414);
        assertThat(server.stats().get("oversizeHeadsTotal")).isEqualTo(2L);
        assertThat(RawHttp.get(server.port(), "/healthz").code()).isEqualTo(200);
    }

    @Test
    void connectionsPastTheBoundAreClosedAtOnceAndCounted() throws Exception {
        start(HealthHttpServerTest.SETTINGS.withMaxConnections(10));
        for (int i = 0; i < 10; i++) {
            sockets.add(RawHttp.connect(server.port()));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> server.stats().get("connections").equals(10));

        try (Socket extra = RawHttp.connect(server.port())) {
            long start = System.nanoTime();
            assertThat(RawHttp.closedByServer(extra, 2_000)).as("the 11th connection is closed").isTrue();
            assertThat((System.nanoTime() - start) / 1_000_000).as("at once, not at a timeout").isLessThan(1_000);
        }
        assertThat(server.stats().get("refusedAtBoundTotal")).isEqualTo(1L);

        sockets.remove(0).close();
        await().atMost(Duration.ofSeconds(5)).until(() -> server.stats().get("connections").equals(9));
        assertThat(RawHttp.get(server.port(), "/healthz").code()).as("a freed slot serves again").isEqualTo(200);
    }

    @Test
    void closingTheServerClosesKeptAliveConnections() throws Exception {
        start(HealthHttpServerTest.SETTINGS);
        try (Socket socket = RawHttp.connect(server.port())) {
            RawHttp.send(socket, "GET /healthz HTTP/1.1\r\nHost: agent\r\n\r\n");
            byte[] answer = new byte[4096];
            assertThat(new String(answer, 0, socket.getInputStream().read(answer), StandardCharsets.ISO_8859_1))
                    .startsWith("HTTP/1.1 200 OK").endsWith("ok\n");

            server.close();

            assertThat(RawHttp.closedByServer(socket, 2_000)).as("no connection outlives the server").isTrue();
        }
    }

    @Test
    void aTakenPortFailsTheConstructorAsBefore() {
        start(HealthHttpServerTest.SETTINGS);
        InetSocketAddress taken = new InetSocketAddress("127.0.0.1", server.port());

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new HealthHttpServer(taken,
                        HealthHttpServerTest.SETTINGS, sources, Clock.systemUTC()))
                .isInstanceOf(java.io.UncheckedIOException.class)
                .hasMessage("cannot bind http endpoint to 127.0.0.1:" + server.port() + ": Address already in use");
        assertThat(server.stats().get("connections")).isEqualTo(0);
    }

    @Test
    void requestBodiesAreRefusedWith413() throws Exception {
        start(HealthHttpServerTest.SETTINGS);
        try (Socket socket = RawHttp.connect(server.port())) {
            RawHttp.send(socket, "GET /healthz HTTP/1.1\r\nHost: agent\r\nContent-Length: 5\r\n\r\nhello");
            RawHttp.Answer answer = RawHttp.parse(RawHttp.readAll(socket.getInputStream()));

            assertThat(answer.code()).isEqualTo(413);
            assertThat(answer.body()).isEqualTo("request bodies are not accepted on /healthz\n");
        }
        assertThat(server.stats().get("bodiesRefusedTotal")).isEqualTo(1L);
    }

    @Test
    void aKeptAliveConnectionIsClosedWhenIdleAndPipelinedRequestsAnswerInOrder() throws Exception {
        start(HealthHttpServerTest.SETTINGS.withTimeouts(Duration.ofSeconds(5), Duration.ofMillis(300)));
        try (Socket socket = RawHttp.connect(server.port())) {
            RawHttp.send(socket, "GET /status HTTP/1.1\r\nHost: agent\r\n\r\nGET /healthz HTTP/1.1\r\nHost: agent\r\n\r\n");

            long start = System.nanoTime();
            String both = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            long closedAfter = (System.nanoTime() - start) / 1_000_000;

            assertThat(both).startsWith("HTTP/1.1 200 OK").contains("application/json");
            assertThat(both.indexOf("\"agent\"")).as("/status answered first")
                    .isLessThan(both.lastIndexOf("HTTP/1.1 200 OK"));
            assertThat(both).endsWith("\r\n\r\nok\n");
            assertThat(closedAfter).as("closed at the idle timeout").isBetween(250L, 3_000L);
        }
        assertThat(server.stats().get("closedIdleTotal")).isEqualTo(1L);
    }

    @Test
    void hungEndpointHandlersDoNotDelayHealthzAndAFullQueueAnswers503() throws Exception {
        start(HealthHttpServerTest.SETTINGS.withThreads(2).withQueue(2));
        CountDownLatch release = new CountDownLatch(1);
        server.addEndpoint(new HttpEndpoint() {
            @Override
            public String path() {
                return "/metrics";
            }

            @Override
            public void handle(HttpExchange exchange) throws IOException {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                Exchanges.sendText(exchange, 200, "late");
            }
        }, "test");
        ExecutorService scrapers = Executors.newFixedThreadPool(4);
        try {
            List<Future<RawHttp.Answer>> hung = new ArrayList<>();
            for (int i = 0; i < 4; i++) {                       // 2 threads + 2 queued
                hung.add(scrapers.submit(() -> RawHttp.get(server.port(), "/metrics")));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> server.stats().get("connections").equals(4));
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                RawHttp.Answer busy = RawHttp.get(server.port(), "/metrics");
                assertThat(busy.code()).isEqualTo(503);
                assertThat(busy.head()).contains("retry-after: 1");
            });

            for (int i = 0; i < 20; i++) {
                long start = System.nanoTime();
                assertThat(RawHttp.get(server.port(), "/healthz").code()).isEqualTo(200);
                assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(1_000);
            }
            release.countDown();
            for (Future<RawHttp.Answer> answer : hung) {
                assertThat(answer.get().body()).isEqualTo("late\n");
            }
        } finally {
            release.countDown();
            scrapers.shutdownNow();
        }
    }

    @Test
    void aClientThatStopsReadingALargeBodyIsCutAtTheWriteTimeoutAndFreesTheThread() throws Exception {
        start(HealthHttpServerTest.SETTINGS.withThreads(1).withWriteTimeout(Duration.ofMillis(500)));
        byte[] block = new byte[64 * 1024];
        server.addEndpoint(new HttpEndpoint() {
            @Override
            public String path() {
                return "/metrics";
            }

            @Override
            public void handle(HttpExchange exchange) throws IOException {
                exchange.sendResponseHeaders(200, 0);
                try (OutputStream out = exchange.getResponseBody()) {
                    for (int i = 0; i < 1_000; i++) {               // 64 MB: far more than the socket buffers
                        out.write(block);
                    }
                }
            }
        }, "test");
        try (Socket reader = RawHttp.connect(server.port())) {
            RawHttp.send(reader, "GET /metrics HTTP/1.1\r\nHost: agent\r\n\r\n");   // and never reads

            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(server.stats().get("cutAtWriteTimeoutTotal")).isEqualTo(1L));
        }
        assertThat(RawHttp.get(server.port(), "/status").code()).as("the one handler thread is free again")
                .isEqualTo(200);
    }

    @Test
    void aChunkedEndpointBodyArrivesWholeAndHeadGetsNone() throws Exception {
        start(HealthHttpServerTest.SETTINGS);
        String line = "rdma_agent_infiniband_port_data_received_bytes_total{device=\"mlx5_0\",port=\"1\"} 1\n";
        String page = line.repeat(5_000);                        // ~400 KB: many chunks
        server.addEndpoint(new HttpEndpoint() {
            @Override
            public String path() {
                return "/metrics";
            }

            @Override
            public void handle(HttpExchange exchange) throws IOException {
                exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
                exchange.sendResponseHeaders(200, 0);
                try (OutputStream out = exchange.getResponseBody()) {
                    for (int i = 0; i < 5_000; i++) {
                        out.write(line.getBytes(StandardCharsets.UTF_8));
                    }
                }
            }
        }, "test");

        var client = java.net.http.HttpClient.newHttpClient();
        var get = client.send(java.net.http.HttpRequest.newBuilder(server.uri().resolve("/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        var head = client.send(java.net.http.HttpRequest.newBuilder(server.uri().resolve("/metrics"))
                .method("HEAD", java.net.http.HttpRequest.BodyPublishers.noBody()).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());

        assertThat(get.statusCode()).isEqualTo(200);
        assertThat(get.body()).isEqualTo(page);
        assertThat(get.headers().firstValue("transfer-encoding")).hasValue("chunked");
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(client.send(java.net.http.HttpRequest.newBuilder(server.uri().resolve("/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body()).as("the kept-alive connection again")
                .isEqualTo(page);
        try (Socket old = RawHttp.connect(server.port())) {
            RawHttp.send(old, "GET /metrics HTTP/1.0\r\n\r\n");
            RawHttp.Answer answer = RawHttp.parse(RawHttp.readAll(old.getInputStream()));

            assertThat(answer.head()).as("no chunks for HTTP/1.0: the close ends the body")
                    .doesNotContainIgnoringCase("transfer-encoding");
            assertThat(answer.body()).isEqualTo(page);
        }
    }
}
