// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.events;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.TopologyDiff;
import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.discovery.internal.TopologySource;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds the current snapshot and turns scans into revisions and listener calls. All scans run on one thread
 * ({@code rdma-agent-discovery-scan}): kernel events are debounced into an incremental scan
 * ({@link #hint}), a slow periodic full rescan is the safety net for anything events missed.
 */
public final class DiscoveryEngine implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DiscoveryEngine.class);
    /** A burst of uevents (one per VF when sriov_numvfs changes) settles within a few ms. */
    public static final long DEFAULT_DEBOUNCE_MS = 15;

    private volatile TopologySource source;           // replaced on the scan thread only
    private final ScheduledExecutorService scanner;
    private final List<RdmaTopologyListener> listeners = new CopyOnWriteArrayList<>();
    private final AtomicLong revisions = new AtomicLong();
    private final Object lock = new Object();
    private ScanHints pending = new ScanHints();
    private ScheduledFuture<?> pendingRun;
    private ScheduledFuture<?> periodic;                 // guarded by lock
    private volatile long rescanIntervalMs;
    private volatile long debounceMs = DEFAULT_DEBOUNCE_MS;
    private volatile HostSnapshot current;
    private final java.util.concurrent.atomic.LongAdder fullScans = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder incrementalScans = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder failedScans = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder kernelEvents = new java.util.concurrent.atomic.LongAdder();

    /** Work done since start, for {@code /status} and metrics. */
    public record Counters(long fullScans, long incrementalScans, long failedScans, long kernelEvents) {
    }

    public DiscoveryEngine(TopologySource source, long rescanIntervalMs) {
        this.source = source;
        ScheduledThreadPoolExecutor ex = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "rdma-agent-discovery-scan");
            t.setDaemon(true);
            return t;
        });
        ex.setRemoveOnCancelPolicy(true);
        this.scanner = ex;
        this.current = source.scan().withRevision(revisions.incrementAndGet(), Instant.now());
        fullScans.increment();
        LOG.info("discovery started backend={} devices={} pciFunctions={} netdevs={} problems={}", source.name(),
                current.devices().size(), current.pciFunctions().size(), current.netDevices().size(),
                current.problems().size());
        retune(rescanIntervalMs, DEFAULT_DEBOUNCE_MS);
    }

    /**
     * Applies new tuning in place: the periodic rescan is rescheduled (its next run one new interval from now),
     * the debounce applies to the next event. The snapshot, its revision and the listeners stay as they are,
     * which is why a tuning edit needs no restart of the component (and of its consumers).
     */
    public void retune(long newRescanIntervalMs, long newDebounceMs) {
        synchronized (lock) {
            debounceMs = newDebounceMs;
            if (periodic != null && newRescanIntervalMs == rescanIntervalMs) {
                return;
            }
            if (periodic != null) {
                periodic.cancel(false);
                periodic = null;
            }
            rescanIntervalMs = newRescanIntervalMs;
            if (newRescanIntervalMs > 0) {
                periodic = scanner.scheduleWithFixedDelay(() -> runSafely(ScanHints.fullScan()), newRescanIntervalMs,
                        newRescanIntervalMs, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** The periodic full rescan's period in milliseconds; 0 when off. */
    public long rescanInterval() {
        return rescanIntervalMs;
    }

    public long debounce() {
        return debounceMs;
    }

    /** Schedules a full rescan (a backend's dependency came or went), without counting a kernel event. */
    public void rescanSoon() {
        requestScan(ScanHints.fullScan());
    }

    public HostSnapshot snapshot() {
        return current;
    }

    public Counters counters() {
        return new Counters(fullScans.sum(), incrementalScans.sum(), failedScans.sum(), kernelEvents.sum());
    }

    public void addListener(RdmaTopologyListener l) {
        listeners.add(l);
    }

    public void removeListener(RdmaTopologyListener l) {
        listeners.remove(l);
    }

    /**
     * Reads another tree (a new backend or root) from now on: a full scan of it on the scan thread, waited for,
     * whose difference to the current snapshot reaches the listeners as one more revision. The engine, its
     * listeners and the revision sequence stay, so consumers keep their service and hear the change as a diff.
     */
    public HostSnapshot replaceSource(TopologySource next) {
        try {
            return scanner.submit(() -> {
                source = next;
                HostSnapshot before = current;
                HostSnapshot after = apply(ScanHints.fullScan());
                if (after == before) {                       // same topology: the new backend's status still shows
                    current = next.scan().withRevision(before.revision(), Instant.now());
                }
                return current;
            }).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return current;
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("scan of " + next.name() + " failed: " + e.getCause(), e.getCause());
        }
    }

    /** Full rescan on the scan thread, waited for; returns the resulting snapshot. */
    public HostSnapshot rescan() {
        try {
            return scanner.submit(() -> apply(ScanHints.fullScan())).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return current;
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("rescan failed: " + e.getCause(), e.getCause());
        }
    }

    /** Called from event threads: merges hints and schedules one incremental scan after a short quiet time. */
    public void hint(ScanHints hints) {
        kernelEvents.increment();
        requestScan(hints);
    }

    /** Like {@link #hint} for sources that are not kernel notifications (verbs async events count their own). */
    public void requestScan(ScanHints hints) {
        synchronized (lock) {
            pending.mergeFrom(hints);
            if (pendingRun == null) {
                pendingRun = scanner.schedule(this::runPending, debounceMs, TimeUnit.MILLISECONDS);
            }
        }
    }

    private void runPending() {
        ScanHints h;
        synchronized (lock) {
            h = pending;
            pending = new ScanHints();
            // From here a new hint schedules a new run: one that came while this scan runs (after its hints
            // were taken) would otherwise wait for the next event. The scan thread runs them one after another.
            pendingRun = null;
        }
        if (!h.isEmpty()) {
            runSafely(h);
        }
    }

    private void runSafely(ScanHints h) {
        try {
            apply(h);
        } catch (RuntimeException e) {
            failedScans.increment();
            LOG.error("discovery scan failed hints={}", h, e);
        }
    }

    /** Runs on the scan thread only. */
    HostSnapshot apply(ScanHints hints) {
        HostSnapshot scanned = hints.isFull() ? source.scan() : source.update(hints);
        (hints.isFull() ? fullScans : incrementalScans).increment();
        HostSnapshot before = current;
        TopologyDiff diff = TopologyDiffs.between(before, scanned, before.revision() + 1);
        if (diff.isEmpty()) {
            return before;
        }
        HostSnapshot next = scanned.withRevision(revisions.incrementAndGet(), Instant.now());
        current = next;
        logChange(diff);
        notify(listeners, next, diff, LOG::warn);
        return next;
    }

    public static void notify(List<RdmaTopologyListener> targets, HostSnapshot s, TopologyDiff d,
                              BiConsumer<String, Object> onFailure) {
        for (RdmaTopologyListener l : targets) {
            try {
                l.topologyChanged(s, d);
            } catch (RuntimeException e) {
                onFailure.accept("topology listener failed: {}", e.toString());
            }
        }
    }

    private static void logChange(TopologyDiff d) {
        if (!d.devicesAdded().isEmpty() || !d.devicesRemoved().isEmpty() || !d.vfCountsChanged().isEmpty()) {
            LOG.info("topology revision={} devicesAdded={} devicesRemoved={} vfCounts={}", d.toRevision(),
                    d.devicesAdded(), d.devicesRemoved(), d.vfCountsChanged());
        } else {
            LOG.debug("topology revision={} diff={}", d.toRevision(), d);
        }
    }

    @Override
    public void close() {
        scanner.shutdownNow();
        try {
            scanner.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
