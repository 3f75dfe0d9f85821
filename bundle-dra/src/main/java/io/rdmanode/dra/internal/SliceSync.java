// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the pools' ResourceSlices in step with the host on one thread of its own: {@link #request()} (a discovery
 * change, kubelet's registration, which follows a kubelet restart that deleted every slice of the node) publishes
 * at once; a failed publish is retried with exponential backoff (1 s doubling to 30 s); and the slices are
 * checked every {@code resyncEvery} in case someone else deleted them. Requests while a publish runs fold into
 * one more publish. Each pool is published on its own (its own generations; one pool's failure does not hold
 * back the others), and this driver's slices of this node in pools no longer configured are deleted.
 */
final class SliceSync implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SliceSync.class);
    private static final long FIRST_RETRY_MILLIS = 1000;
    private static final long MAX_RETRY_MILLIS = 30_000;

    /** The last attempt of one pool, for {@code /status}. */
    record State(Optional<SlicePublisher.Published> published, Optional<String> error, Instant at) { }

    private static final State NONE = new State(Optional.empty(), Optional.empty(), Instant.EPOCH);

    private final SlicePublisher publisher;
    private final Supplier<Map<String, List<Device>>> pools;
    private final ScheduledExecutorService thread;
    private final AtomicBoolean pending = new AtomicBoolean();
    private volatile boolean closed;
    private long retryMillis = FIRST_RETRY_MILLIS;
    private volatile Map<String, State> states = Map.of();
    /** An error of no one pool: the pools' devices could not be told, or removed pools not deleted. */
    private volatile Optional<String> error = Optional.empty();

    /** One pool. */
    SliceSync(SlicePublisher publisher, String pool, Supplier<List<Device>> devices, Duration resyncEvery) {
        this(publisher, () -> Map.of(pool, devices.get()), resyncEvery);
    }

    /** @param pools each pool's devices, pools in configured order */
    SliceSync(SlicePublisher publisher, Supplier<Map<String, List<Device>>> pools, Duration resyncEvery) {
        this.publisher = publisher;
        this.pools = pools;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rdma-agent-dra-slices");
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(this::request, 0, resyncEvery.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Publish soon; returns at once. */
    void request() {
        if (pending.compareAndSet(false, true)) {
            try {
                thread.execute(this::run);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // closed: nothing to publish any more
            }
        }
    }

    private void run() {
        pending.set(false);
        Map<String, List<Device>> now;
        try {
            now = pools.get();
        } catch (RuntimeException e) {
            error = Optional.of(describe(e));
            LOG.warn("cannot tell the devices of the DRA pools (retry in {} ms): {}", retryMillis, error.get());
            retry();
            return;
        }
        boolean failed = false;
        Map<String, State> next = new LinkedHashMap<>();
        for (Map.Entry<String, List<Device>> pool : now.entrySet()) {
            State before = states.getOrDefault(pool.getKey(), NONE);
            try {
                SlicePublisher.Published p = publisher.publish(pool.getKey(), pool.getValue());
                next.put(pool.getKey(), new State(Optional.of(p), Optional.empty(), Instant.now()));
            } catch (RuntimeException e) {
                if (closed) {
                    return;                  // interrupted by close(): nothing to retry
                }
                failed = true;
                String why = describe(e);
                next.put(pool.getKey(), new State(before.published(), Optional.of(why), Instant.now()));
                LOG.warn("cannot publish the ResourceSlices of pool {} (retry in {} ms): {}", pool.getKey(),
                        retryMillis, why);
            }
        }
        Optional<String> otherError = Optional.empty();
        try {
            publisher.deleteOtherPools(now.keySet());
        } catch (RuntimeException e) {
            if (closed) {
                return;
            }
            failed = true;
            otherError = Optional.of("deleting the slices of pools no longer configured: " + describe(e));
            LOG.warn("cannot delete the ResourceSlices of pools no longer configured (retry in {} ms): {}",
                    retryMillis, otherError.get());
        }
        states = java.util.Collections.unmodifiableMap(next);
        error = otherError;
        if (failed) {
            retry();
        } else {
            retryMillis = FIRST_RETRY_MILLIS;
        }
    }

    private void retry() {
        if (closed) {
            return;
        }
        try {
            thread.schedule(this::request, retryMillis, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return;                          // closed meanwhile
        }
        retryMillis = Math.min(MAX_RETRY_MILLIS, retryMillis * 2);
    }

    private static String describe(RuntimeException e) {
        return e.getCause() == null ? e.toString() : e + " (" + e.getCause() + ")";
    }

    /** Each pool's last attempt (pools published at least once, or tried). */
    Map<String, State> states() {
        return states;
    }

    /** The last error of no one pool, if the last attempt had one. */
    Optional<String> error() {
        return error;
    }

    @Override
    public void close() {
        closed = true;
        thread.shutdownNow();
    }
}
