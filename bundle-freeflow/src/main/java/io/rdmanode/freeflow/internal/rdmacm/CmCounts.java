// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.rdmacm;

import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What rdma_cm did, per client and for the whole router (/status and metrics): CONNECTs and ACCEPTs the kernel took,
 * connection attempts rejected (REJECTED events), and errors: requests refused (by the router's checks or the
 * kernel) and error events (ADDR_ERROR, ROUTE_ERROR, CONNECT_ERROR, UNREACHABLE). A client's counts end with it; the
 * router's stay.
 */
public final class CmCounts {
    static final int ADDR_ERROR = 1;
    static final int ROUTE_ERROR = 3;
    static final int CONNECT_ERROR = 6;
    static final int UNREACHABLE = 7;
    static final int REJECTED = 8;
    private static final int CONNECTS = 0;
    private static final int ACCEPTS = 1;
    private static final int REJECTS = 2;
    private static final int ERRORS = 3;

    private final LongAdder connects = new LongAdder();
    private final LongAdder accepts = new LongAdder();
    private final LongAdder rejects = new LongAdder();
    private final LongAdder requestErrors = new LongAdder();
    private final LongAdder errorEvents = new LongAdder();
    /** Weak: a request still in flight when its client was reclaimed may count after {@link #forget}. */
    private final Map<Object, long[]> byOwner = new WeakHashMap<>();

    /**
     * One client's rdma_cm: its event channels, the cm_ids on them (its own and those of connection requests it
     * got), the events fetched from the kernel it has not taken yet, and its counts.
     */
    public record Client(int channels, int ids, int queuedEvents, long connects, long accepts, long rejects,
                         long errors) {
        public static final Client NONE = new Client(0, 0, 0, 0, 0, 0, 0);
    }

    /** The router's counts since it started (zeros without rdma_cm). */
    public record Totals(long connects, long accepts, long rejects, long requestErrors, long errorEvents) {
        public static final Totals NONE = new Totals(0, 0, 0, 0, 0);
    }

    void connected(Object owner) {
        connects.increment();
        add(owner, CONNECTS);
    }

    void accepted(Object owner) {
        accepts.increment();
        add(owner, ACCEPTS);
    }

    void refused(Object owner) {
        requestErrors.increment();
        add(owner, ERRORS);
    }

    /** An event fetched for owner's channel: a rejection or an error event is counted. */
    void event(Object owner, int type) {
        if (type == REJECTED) {
            rejects.increment();
            add(owner, REJECTS);
        } else if (type == ADDR_ERROR || type == ROUTE_ERROR || type == CONNECT_ERROR || type == UNREACHABLE) {
            errorEvents.increment();
            add(owner, ERRORS);
        }
    }

    private void add(Object owner, int what) {
        synchronized (byOwner) {
            byOwner.computeIfAbsent(owner, o -> new long[4])[what]++;
        }
    }

    /** owner's counts: {connects, accepts, rejects, errors}. */
    long[] of(Object owner) {
        synchronized (byOwner) {
            return byOwner.getOrDefault(owner, new long[4]).clone();
        }
    }

    void forget(Object owner) {
        synchronized (byOwner) {
            byOwner.remove(owner);
        }
    }

    Totals totals() {
        return new Totals(connects.sum(), accepts.sum(), rejects.sum(), requestErrors.sum(), errorEvents.sum());
    }
}
