// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.rdmanode.health.HealthCheck;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs health checks on their own threads, never on the HTTP threads, as Felix's health-check executor does: a
 * run (by {@link HealthCache}'s refresher) starts every check that is not already running, waits for them all up
 * to one bound, and returns what finished in time. A check still running then is reported failing as timed out,
 * with its last finished result; it keeps running, and the next run waits for that same call rather than
 * starting another, so a hung check holds one thread, not one per refresh. Thread-safe.
 */
final class CheckRunner implements AutoCloseable {

    /** Per check (by identity): the run in flight or last finished, and the last finished result. */
    private static final class Entry {
        CompletableFuture<CheckResult> run;
        CheckResult last;
    }

    /** The bound a request waits for its checks unless configured otherwise. */
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

    private final Duration timeout;
    private final WarnOnce warnOnce;
    private final ExecutorService executor;
    private final Map<HealthCheck, Entry> entries = new ConcurrentHashMap<>();

    /** @param timeout how long a request waits for its checks; a health endpoint answers within about that */
    CheckRunner(Duration timeout, WarnOnce warnOnce) {
        this.timeout = timeout;
        this.warnOnce = warnOnce;
        AtomicInteger count = new AtomicInteger();
        this.executor = Executors.newCachedThreadPool(task -> {
            Thread thread = new Thread(task, "rdma-agent-health-check-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Every check's result, each fresh unless it did not finish within the bound (then: timed out). */
    List<CheckResult> run(List<HealthCheck> checks) {
        entries.keySet().retainAll(checks);                      // checks that went take their cache along
        List<CompletableFuture<CheckResult>> runs = new ArrayList<>(checks.size());
        for (HealthCheck check : checks) {
            runs.add(start(check));
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        List<CheckResult> out = new ArrayList<>(checks.size());
        for (int i = 0; i < checks.size(); i++) {
            out.add(await(checks.get(i), runs.get(i), deadline));
        }
        return out;
    }

    private CompletableFuture<CheckResult> start(HealthCheck check) {
        Entry entry = entries.computeIfAbsent(check, c -> new Entry());
        synchronized (entry) {
            if (entry.run == null || entry.run.isDone()) {
                CompletableFuture<CheckResult> run = CompletableFuture.supplyAsync(
                        () -> CheckResult.run(check, warnOnce), executor);
                run.thenAccept(result -> {
                    synchronized (entry) {
                        entry.last = result;
                    }
                });
                entry.run = run;
            }
            return entry.run;
        }
    }

    private CheckResult await(HealthCheck check, CompletableFuture<CheckResult> run, long deadline) {
        try {
            CheckResult result = run.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            warnOnce.recovered("timeout:" + result.name());
            return result;
        } catch (TimeoutException e) {
            return timedOut(check);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return timedOut(check);
        } catch (ExecutionException e) {                       // CheckResult.run catches what a check throws
            return new CheckResult(nameOf(check), kindOf(check), false, "check failed " + e.getCause());
        }
    }

    private CheckResult timedOut(HealthCheck check) {
        String name = nameOf(check);
        if (warnOnce.firstFailure("timeout:" + name)) {
            org.slf4j.LoggerFactory.getLogger(CheckRunner.class)
                    .warn("health check still running after {} ms, reporting it as timed out check={}",
                            timeout.toMillis(), name);
        }
        Entry entry = entries.get(check);
        CheckResult last = null;
        if (entry != null) {
            synchronized (entry) {
                last = entry.last;
            }
        }
        String previous = last == null ? "" : "; last result: " + (last.ok() ? "ok" : "failed")
                + (last.message() == null || last.message().isEmpty() ? "" : " " + last.message());
        return new CheckResult(name, kindOf(check), false,
                "timed out after " + timeout.toMillis() + " ms (still running)" + previous);
    }

    private static String nameOf(HealthCheck check) {
        try {
            return check.name();
        } catch (RuntimeException e) {
            return check.getClass().getName();
        }
    }

    private static HealthCheck.Kind kindOf(HealthCheck check) {
        try {
            return check.kind() == null ? HealthCheck.Kind.READY : check.kind();
        } catch (RuntimeException e) {
            return HealthCheck.Kind.READY;
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
