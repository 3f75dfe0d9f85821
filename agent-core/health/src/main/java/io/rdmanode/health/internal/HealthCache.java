// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last health result, refreshed in the background so that {@code /healthz} and {@code /readyz} only read
 * it (issue 21): a request never waits for a check, whatever the clients or checks do. One thread refreshes,
 * every {@code interval} after the previous refresh ended; each refresh runs the checks through
 * {@link CheckRunner} (its per-check timeout model unchanged: a hung check is reported as timed out after the
 * bound, and holds one check thread, not the refresher) and reads the components. A refresh that throws keeps the
 * previous result. Thread-safe.
 */
final class HealthCache implements AutoCloseable {

    /** One refresh's outcome; {@code nanos} is {@link System#nanoTime()} when it ended. */
    record Snapshot(long nanos, List<CheckResult> checks, HealthReport liveness, HealthReport readiness) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(HealthCache.class);

    private final HealthSources sources;
    private final CheckRunner runner;
    private final WarnOnce warnOnce;
    private final ScheduledExecutorService refresher;
    private final CompletableFuture<Snapshot> first = new CompletableFuture<>();
    private volatile Snapshot last;

    HealthCache(HealthSources sources, Duration checkTimeout, Duration interval, WarnOnce warnOnce) {
        this.sources = sources;
        this.warnOnce = warnOnce;
        this.runner = new CheckRunner(checkTimeout, warnOnce);
        this.refresher = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "rdma-agent-health-refresh");
            thread.setDaemon(true);
            return thread;
        });
        refresher.scheduleWithFixedDelay(this::refresh, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The last result, or null before the first refresh ended (a few milliseconds after start, normally). */
    Snapshot last() {
        return last;
    }

    /** Gives {@code use} the last result: at once if there is one, else when the first refresh ends. */
    void whenReady(Consumer<Snapshot> use) {
        Snapshot now = last;
        if (now != null) {
            use.accept(now);
        } else {
            first.thenAccept(use);
        }
    }

    private void refresh() {
        try {
            List<CheckResult> checks = runner.run(sources.checks());
            Snapshot next = new Snapshot(System.nanoTime(), checks, HealthReport.liveness(checks),
                    HealthReport.readiness(checks, sources.components()));
            last = next;
            first.complete(next);
            warnOnce.recovered("refresh");
        } catch (RuntimeException e) {
            if (warnOnce.firstFailure("refresh")) {
                LOG.warn("health refresh failed, keeping the previous result", e);
            }
            if (last == null) {                                 // nothing to keep: a request must not wait on
                List<HealthReport.Line> line = List.of(new HealthReport.Line("health-refresh", false,
                        "refresh failed: " + e));
                Snapshot failed = new Snapshot(System.nanoTime(), List.of(), HealthReport.of("healthz", line),
                        HealthReport.of("readyz", line));
                last = failed;
                first.complete(failed);
            }
        }
    }

    @Override
    public void close() {
        refresher.shutdownNow();
        runner.close();
    }
}
