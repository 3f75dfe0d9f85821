// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher's own readiness, asked over the real HTTP endpoint named in {@code http.url}. */
class ReadinessProbeTest {

    @TempDir
    Path state;
    private HttpServer server;
    private final AtomicInteger readyzStatus = new AtomicInteger(503);
    private final AtomicInteger readyzCalls = new AtomicInteger();
    private final List<Integer> clientPorts = new CopyOnWriteArrayList<>();

    @BeforeEach
    void serve() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/readyz", exchange -> {
            readyzCalls.incrementAndGet();
            clientPorts.add(exchange.getRemoteAddress().getPort());
            // As the agent's endpoint: ?pid of another process gets 409, whatever the readiness.
            String query = exchange.getRequestURI().getQuery();
            int status = query != null && !query.equals("pid=" + ProcessHandle.current().pid())
                    ? 409 : readyzStatus.get();
            byte[] body = (status == 200 ? "readyz check passed\n" : "[-]kubelet not registered\n").getBytes();
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        Files.writeString(state.resolve("http.url"), "http://127.0.0.1:" + server.getAddress().getPort() + "\n");
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void readinessIsNotedAtTheFirstPollThatAnswers200() throws InterruptedException {
        ReadinessProbe probe = new ReadinessProbe(state);
        new Thread(() -> {
            sleep(300);
            readyzStatus.set(200);
        }).start();

        assertThat(probe.awaitReady(Duration.ofSeconds(10), 20, () -> false)).isPresent();
        assertThat(probe.notReadyBecause(probe.baseUrl().orElseThrow())).isEmpty();
    }

    @Test
    void aProcessThatHandedOverStopsAskingAnEndpointThatNowAnswersForItsSuccessor() throws InterruptedException {
        ReadinessProbe probe = new ReadinessProbe(state);
        AtomicBoolean handedOver = new AtomicBoolean();
        new Thread(() -> {
            sleep(200);
            handedOver.set(true);
        }).start();

        long started = System.nanoTime();
        assertThat(probe.awaitReady(Duration.ofSeconds(30), 20, handedOver::get)).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        int calls = readyzCalls.get();
        sleep(100);
        assertThat(readyzCalls).hasValue(calls);
    }

    /**
     * After a handover the listening port is the successor's, but a connection the predecessor's server accepted
     * before stays the predecessor's: a probe that reused one asked the predecessor itself.
     */
    @Test
    void everyRequestTakesAConnectionOfItsOwn() {
        String base = new ReadinessProbe(state).baseUrl().orElseThrow();
        readyzStatus.set(200);

        for (int i = 0; i < 3; i++) {
            assertThat(ReadinessProbe.get(base + "/readyz")).isEqualTo(200);
        }

        assertThat(clientPorts).hasSize(3).doesNotHaveDuplicates();
    }

    @Test
    void theFailingLinesNameWhatIsNotReady() {
        ReadinessProbe probe = new ReadinessProbe(state);

        assertThat(probe.notReadyBecause(probe.baseUrl().orElseThrow())).isEqualTo("kubelet not registered");
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
