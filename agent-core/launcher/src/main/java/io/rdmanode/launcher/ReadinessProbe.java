// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
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
        try {
            HttpURLConnection connection = (HttpURLConnection) URI.create(base + "/readyz").toURL().openConnection();
            connection.setConnectTimeout(1000);
            connection.setReadTimeout(2000);
            if (connection.getResponseCode() == 200) {
                return "";
            }
            try (InputStream body = connection.getErrorStream()) {
                String text = body == null ? "" : new String(body.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                return String.join("; ", text.lines().filter(l -> l.startsWith("[-]")).map(l -> l.substring(3)).toList());
            }
        } catch (IOException e) {
            return "";
        }
    }

    Optional<String> baseUrl() {
        try {
            return Files.isRegularFile(urlFile) ? Optional.of(Files.readString(urlFile).trim()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    static int get(String url) {
        try {
            HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
            connection.setConnectTimeout(1000);
            connection.setReadTimeout(2000);
            int code = connection.getResponseCode();
            try (InputStream body = code < 400 ? connection.getInputStream() : connection.getErrorStream()) {
                if (body != null) {
                    body.readAllBytes();
                }
            }
            return code;
        } catch (IOException e) {
            return -1;
        }
    }
}
