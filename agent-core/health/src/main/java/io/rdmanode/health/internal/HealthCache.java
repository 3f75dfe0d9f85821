// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last health result, refreshed in the background so that {@code /healthz} and {@code /readyz} only read
 * it (issue 21): a request never waits for a check, whatever the clients or checks do. One thread refreshes,
 * every {@code interval} after the previous refresh ended while the agent is ready, every {@link #FAST_INTERVAL}
 * for {@link #FAST_WINDOW} after it became not ready or after {@link #refreshSoon()} (a bundle, a check or the
 * end of start-up changed): readiness is what kubelet, systemd and a successor's handover wait for, and a fixed
 * second between refreshes kept a ready agent saying "not ready" for up to that second (a start to ready took
 * 1.9 s, of which ~0.9 s was this wait). An agent that stays not ready (the demo, no kubelet) goes back to
 * {@code interval} after the window. Each refresh runs the checks through {@link CheckRunner} (its per-check
 * timeout model unchanged: a hung check is reported as timed out after the bound, and holds one check thread,
 * not the refresher) and reads the components. A refresh that throws keeps the previous result. Thread-safe.
 */
final class HealthCache implements AutoCloseable {

    /** One refresh's outcome; {@code nanos} is {@link System#nanoTime()} when it ended. */
    record Snapshot(long nanos, List<CheckResult> checks, HealthReport liveness, HealthReport readiness) {
    }

    /**
     * Pause between refreshes while the agent is not ready, for {@link #FAST_WINDOW}. The health threads of a demo
     * start used ~1.2 s of CPU in their first 33 s with 25 ms and ~1.15 s with 50 ms; most of it is not these
     * refreshes but the HTTP thread answering the launcher's /readyz polls (jcmd Thread.print at 20 s: event loop
     * 309 ms, refresher 197 ms, check threads ~340 ms).
     */
    static final Duration FAST_INTERVAL = Duration.ofMillis(50);
    static final Duration FAST_WINDOW = Duration.ofSeconds(10);
    private static final Logger LOG = LoggerFactory.getLogger(HealthCache.class);

    private final HealthSources sources;
    private final CheckRunner runner;
    private final WarnOnce warnOnce;
    private final ScheduledExecutorService refresher;
    private final CompletableFuture<Snapshot> first = new CompletableFuture<>();
    private final long intervalNanos;
    private final Object schedule = new Object();
    private volatile Snapshot last;
    /** Closing: a refresh that finds the check threads gone (RejectedExecutionException) is not a failure to log. */
    private volatile boolean closed;
    private ScheduledFuture<?> next;                    // guarded by schedule
    private long fastUntil;                             // guarded by schedule; System.nanoTime()
    private boolean again;                              // guarded by schedule: a change during a refresh
    private boolean wasReady;                           // refresher thread only

    HealthCache(HealthSources sources, Duration checkTimeout, Duration interval, WarnOnce warnOnce) {
        this.sources = sources;
        this.warnOnce = warnOnce;
        this.runner = new CheckRunner(checkTimeout, warnOnce);
        this.refresher = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "rdma-agent-health-refresh");
            thread.setDaemon(true);
            return thread;
        });
        this.intervalNanos = interval.toNanos();
        refreshSoon();
    }

    /** Refreshes now (after a refresh in progress) and often for {@link #FAST_WINDOW}: something changed. */
    void refreshSoon() {
        synchronized (schedule) {
            fastUntil = System.nanoTime() + FAST_WINDOW.toNanos();
            if (next != null && !next.cancel(false)) {
                again = true;                               // running now: it may have read the state before
                return;
            }
            next = schedule(0);
        }
    }

    private ScheduledFuture<?> schedule(long delayNanos) {
        try {
            return refresher.schedule(this::refreshThenSchedule, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            return null;                                    // closed
        }
    }

    private void refreshThenSchedule() {
        refresh();
        Snapshot now = last;
        boolean ready = now != null && now.readiness().ok();
        synchronized (schedule) {
            long at = System.nanoTime();
            if (wasReady && !ready) {
                fastUntil = at + FAST_WINDOW.toNanos();     // just lost readiness: watch it come back
            }
            wasReady = ready;
            boolean fast = !ready && at - fastUntil < 0;
            next = schedule(again ? 0 : fast ? Math.min(FAST_INTERVAL.toNanos(), intervalNanos) : intervalNanos);
            again = false;
        }
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
            if (closed) {
                return;                                         // stopping (the bundle is being disabled): no news
            }
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
        closed = true;
        refresher.shutdownNow();
        runner.close();
    }
}
