// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.agent.Handover;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The endpoint's listening socket passed to a successor server (as the handover bundle passes it, here within one
 * process: Netty's own descriptor duplicated): a client queued in the backlog and every later one get answered by
 * the successor, a kept-alive connection to the predecessor gets its answer with {@code Connection: close}.
 */
class HttpHandoverTest {

    private HealthHttpServer predecessor;
    private HealthHttpServer successor;

    @AfterEach
    void close() {
        if (successor != null) {
            successor.close();
        }
        if (predecessor != null) {
            predecessor.close();
        }
    }

    @Test
    void theSuccessorAcceptsOnTheAdoptedSocket() throws Exception {
        Assumptions.assumeTrue(EpollTransport.available(), "Netty epoll is not available here");
        predecessor = new HealthHttpServer(new InetSocketAddress("127.0.0.1", 0), HealthHttpServerTest.SETTINGS,
                new FixedHealthSources(new AgentInfo("1.2.3", java.time.Instant.now(), "17", 1)), java.time.Clock.systemUTC());
        int port = predecessor.port();
        Socket keptAlive = new Socket("127.0.0.1", port);
        assertThat(get(keptAlive, "/healthz")).startsWith("HTTP/1.1 200").doesNotContain("connection: close");
        Handover.Door door = predecessor.door().orElseThrow();
        int dup = dup(door.fd());

        door.handedOver();
        Socket queued = new Socket("127.0.0.1", port);
        successor = new HealthHttpServer(new InetSocketAddress("127.0.0.1", port), () -> OptionalInt.of(dup),
                HealthHttpServerTest.SETTINGS, new FixedHealthSources(new AgentInfo("1.2.3", java.time.Instant.now(), "17", 1)), java.time.Clock.systemUTC());

        assertThat(get(queued, "/healthz")).startsWith("HTTP/1.1 200");
        assertThat(get(new Socket("127.0.0.1", port), "/healthz")).startsWith("HTTP/1.1 200");
        assertThat(get(keptAlive, "/healthz")).startsWith("HTTP/1.1 200").containsIgnoringCase("connection: close");
        predecessor.close();
        assertThat(get(new Socket("127.0.0.1", port), "/healthz")).startsWith("HTTP/1.1 200");
        assertThat(successor.door()).isPresent();
    }

    /** What the handover bundle does before it calls handedOver: fcntl(F_DUPFD_CLOEXEC). */
    private static int dup(int fd) throws IOException {
        java.nio.file.Path link = java.nio.file.Path.of("/proc/self/fd/" + fd);
        assertThat(java.nio.file.Files.readSymbolicLink(link).toString()).startsWith("socket:");
        return io.rdmanode.posix.Posix.libc().fcntl(fd, io.rdmanode.posix.Posix.F_DUPFD_CLOEXEC, 0);
    }

    private static String get(Socket socket, String path) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = socket.getInputStream();
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.append((char) b);
        }
        String text = head.toString();
        int length = 0;
        for (String line : text.split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        in.readNBytes(length);
        return text.toLowerCase().replace("http/1.1", "HTTP/1.1");
    }
}
