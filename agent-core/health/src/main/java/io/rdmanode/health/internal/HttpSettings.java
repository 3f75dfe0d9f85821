// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import java.time.Duration;

/**
 * The HTTP server's bounds (issue 21). Defaults are what the agent runs with: a client gets 5 s to send a
 * complete request head after connecting (kubelet's probe sends it at once; a client that sends nothing or one
 * byte a second is cut), an idle keep-alive connection is closed after 30 s (Prometheus reconnects per scrape at
 * worst), at most 512 connections are open at once (past it a new one is closed on accept), a request head is at
 * most 8 KiB (431 past it), and 2 threads with a queue of 16 run {@code /status} and contributed endpoints
 * (503 with {@code Retry-After} when full). A response a client stops reading is cut after 30 s.
 *
 * @param threads         threads for {@code /status} and contributed endpoints; {@code /healthz} and
 *                        {@code /readyz} answer on the event loop from the cached result
 * @param queue           requests waiting for one of those threads, past which the answer is 503
 * @param headerTimeout   from connection (or from the first byte of a kept-alive connection's next request) to a
 *                        complete request head
 * @param idleTimeout     a kept-alive connection with no request under way is closed after it
 * @param maxConnections  connections open at once; a new one past it is closed at once and counted
 * @param maxHeaderSize   request line and headers, bytes each bound (the request line 414, headers 431)
 * @param writeTimeout    a response body the client does not take within it is cut
 * @param checkTimeout    how long one refresh waits for the health checks (a hung one is reported timed out)
 * @param refreshInterval pause between two refreshes of the cached health result
 */
record HttpSettings(int threads, int queue, Duration headerTimeout, Duration idleTimeout, int maxConnections,
                    int maxHeaderSize, Duration writeTimeout, Duration checkTimeout, Duration refreshInterval) {

    static final HttpSettings DEFAULTS = new HttpSettings(2, 16, Duration.ofSeconds(5), Duration.ofSeconds(30), 512,
            8192, Duration.ofSeconds(30), CheckRunner.DEFAULT_TIMEOUT, Duration.ofSeconds(1));

    HttpSettings withThreads(int value) {
        return new HttpSettings(value, queue, headerTimeout, idleTimeout, maxConnections, maxHeaderSize,
                writeTimeout, checkTimeout, refreshInterval);
    }

    HttpSettings withQueue(int value) {
        return new HttpSettings(threads, value, headerTimeout, idleTimeout, maxConnections, maxHeaderSize,
                writeTimeout, checkTimeout, refreshInterval);
    }

    HttpSettings withTimeouts(Duration header, Duration idle) {
        return new HttpSettings(threads, queue, header, idle, maxConnections, maxHeaderSize, writeTimeout,
                checkTimeout, refreshInterval);
    }

    HttpSettings withMaxConnections(int value) {
        return new HttpSettings(threads, queue, headerTimeout, idleTimeout, value, maxHeaderSize, writeTimeout,
                checkTimeout, refreshInterval);
    }

    HttpSettings withMaxHeaderSize(int value) {
        return new HttpSettings(threads, queue, headerTimeout, idleTimeout, maxConnections, value, writeTimeout,
                checkTimeout, refreshInterval);
    }

    HttpSettings withWriteTimeout(Duration value) {
        return new HttpSettings(threads, queue, headerTimeout, idleTimeout, maxConnections, maxHeaderSize, value,
                checkTimeout, refreshInterval);
    }

    HttpSettings withChecks(Duration timeout, Duration interval) {
        return new HttpSettings(threads, queue, headerTimeout, idleTimeout, maxConnections, maxHeaderSize,
                writeTimeout, timeout, interval);
    }
}
