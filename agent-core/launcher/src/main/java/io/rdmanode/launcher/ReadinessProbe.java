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

/**
 * Asks the agent's own HTTP endpoint whether it is ready. The health bundle writes the URL it bound to
 * {@code <stateDir>/http.url}, so this works with any configured or ephemeral port.
 */
final class ReadinessProbe {

    private final Path urlFile;

    ReadinessProbe(Path stateDir) {
        this.urlFile = stateDir.resolve("http.url");
    }

    /** Polls {@code /readyz} until it answers 200; returns the base URL, or empty after the timeout. */
    Optional<String> awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<String> base = baseUrl();
            if (base.isPresent() && get(base.get() + "/readyz") == 200) {
                return base;
            }
            Thread.sleep(20);
        }
        return Optional.empty();
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
