// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the pool's ResourceSlices in step with the host on one thread of its own: {@link #request()} (a discovery
 * change, kubelet's registration, which follows a kubelet restart that deleted every slice of the node) publishes
 * at once; a failed publish is retried with exponential backoff (1 s doubling to 30 s); and the slices are
 * checked every {@code resyncEvery} in case someone else deleted them. Requests while a publish runs fold into
 * one more publish.
 */
final class SliceSync implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SliceSync.class);
    private static final long FIRST_RETRY_MILLIS = 1000;
    private static final long MAX_RETRY_MILLIS = 30_000;

    /** The last attempt, for {@code /status}. */
    record State(Optional<SlicePublisher.Published> published, Optional<String> error, Instant at) { }

    private final SlicePublisher publisher;
    private final String pool;
    private final Supplier<List<Device>> devices;
    private final ScheduledExecutorService thread;
    private final AtomicBoolean pending = new AtomicBoolean();
    private volatile boolean closed;
    private long retryMillis = FIRST_RETRY_MILLIS;
    private volatile State state = new State(Optional.empty(), Optional.empty(), Instant.EPOCH);

    SliceSync(SlicePublisher publisher, String pool, Supplier<List<Device>> devices, Duration resyncEvery) {
        this.publisher = publisher;
        this.pool = pool;
        this.devices = devices;
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
        try {
            SlicePublisher.Published p = publisher.publish(pool, devices.get());
            state = new State(Optional.of(p), Optional.empty(), Instant.now());
            retryMillis = FIRST_RETRY_MILLIS;
        } catch (RuntimeException e) {
            if (closed) {
                return;                      // interrupted by close(): nothing to retry
            }
            String error = e.getCause() == null ? e.toString() : e + " (" + e.getCause() + ")";
            state = new State(state.published(), Optional.of(error), Instant.now());
            LOG.warn("cannot publish the ResourceSlices of pool {} (retry in {} ms): {}", pool, retryMillis,
                    error);
            thread.schedule(this::request, retryMillis, TimeUnit.MILLISECONDS);
            retryMillis = Math.min(MAX_RETRY_MILLIS, retryMillis * 2);
        }
    }

    State state() {
        return state;
    }

    @Override
    public void close() {
        closed = true;
        thread.shutdownNow();
    }
}
