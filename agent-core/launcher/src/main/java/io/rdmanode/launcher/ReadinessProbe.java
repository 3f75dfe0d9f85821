// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Asks the agent's own HTTP endpoint whether it has started ({@code /startedz}: every bundle active, every door
 * serving, kubelet possibly not there yet) and whether it is ready ({@code /readyz}: also registered with
 * kubelet). The health bundle writes the URL it bound to {@code <stateDir>/http.url}, so this works with any
 * configured or ephemeral port.
 */
final class ReadinessProbe {

    private static final int MAX_BODY = 64 * 1024;

    private final Path urlFile;

    ReadinessProbe(Path stateDir) {
        this.urlFile = stateDir.resolve("http.url");
    }

    /** Polls {@code /startedz} until it answers 200; returns the base URL, or empty after the timeout. */
    Optional<String> awaitStarted(Duration timeout) throws InterruptedException {
        return await("/startedz", timeout, 20);
    }

    /**
     * Polls {@code /readyz} every {@code pollMillis} until it answers 200; the base URL, or empty after the timeout
     * or once {@code giveUp} says so (handed over: the endpoint answers for the successor, never this process).
     */
    Optional<String> awaitReady(Duration timeout, long pollMillis, BooleanSupplier giveUp)
            throws InterruptedException {
        return await("/readyz", timeout, pollMillis, giveUp);
    }

    private Optional<String> await(String path, Duration timeout, long pollMillis) throws InterruptedException {
        return await(path, timeout, pollMillis, () -> false);
    }

    private Optional<String> await(String path, Duration timeout, long pollMillis, BooleanSupplier giveUp)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline && !giveUp.getAsBoolean()) {
            Optional<String> base = baseUrl();
            // ?pid: while a successor takes over, the predecessor answers on the same port until the successor
            // has taken it; its 200 is not this process's.
            if (base.isPresent() && get(base.get() + path + "?pid=" + ProcessHandle.current().pid()) == 200) {
                return base;
            }
            Thread.sleep(pollMillis);
        }
        return Optional.empty();
    }

    /** The failing lines of {@code /readyz}, joined; empty when it answers 200 or not at all. */
    String notReadyBecause(String base) {
        Response response = fetch(base + "/readyz");
        if (response.code() == 200 || response.code() < 0) {
            return "";
        }
        return String.join("; ", response.body().lines().filter(l -> l.startsWith("[-]")).map(l -> l.substring(3))
                .toList());
    }

    Optional<String> baseUrl() {
        try {
            return Files.isRegularFile(urlFile) ? Optional.of(Files.readString(urlFile).trim()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    static int get(String url) {
        return fetch(url).code();
    }

    /** A status code (-1: no answer) and the body's first {@link #MAX_BODY} bytes. */
    record Response(int code, String body) {
    }

    /**
     * One GET on a connection of its own, closed after the answer. Not {@code HttpURLConnection}: the JDK keeps its
     * connections alive and hands a cached one to the next request to the same port, and after a handover that one
     * leads to the predecessor's server (which answers the requests of connections it accepted before), so a
     * predecessor asking the endpoint whether its successor is ready got its own 200 back and stopped before kubelet
     * had switched to the successor (HandoverIT, takeover round). A new connection is accepted by whoever listens now.
     */
    static Response fetch(String url) {
        URI uri = URI.create(url);
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        if (uri.getRawQuery() != null) {
            path += "?" + uri.getRawQuery();
        }
        int port = uri.getPort() < 0 ? 80 : uri.getPort();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(uri.getHost(), port), 1000);
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + port
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] answer = socket.getInputStream().readNBytes(MAX_BODY);
            String text = new String(answer, StandardCharsets.UTF_8);
            // HTTP/1.1 200 OK
            if (!text.startsWith("HTTP/1.") || text.length() < 12) {
                return new Response(-1, "");
            }
            int code = Integer.parseInt(text.substring(9, 12));
            int headersEnd = text.indexOf("\r\n\r\n");
            return new Response(code, headersEnd < 0 ? "" : text.substring(headersEnd + 4));
        } catch (IOException | IllegalArgumentException e) {             // NumberFormatException among them
            return new Response(-1, "");
        }
    }
}
