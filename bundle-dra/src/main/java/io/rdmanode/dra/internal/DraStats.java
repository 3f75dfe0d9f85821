// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** What the DRA service counts, read at scrape time by {@link DraCollector}. Thread-safe. */
public final class DraStats {

    /**
     * Upper bounds (seconds) of the Prepare latency histogram: a Prepare reads each claim from the API server
     * (milliseconds) and writes two files with fsync; kubelet's deadline is 45 s.
     */
    static final double[] PREPARE_BUCKETS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 45};

    final LongAdder claimsPrepared = new LongAdder();
    final LongAdder claimsRefused = new LongAdder();
    /** Refused claims by reason; every reason present from the start, so each series exists at 0. */
    final Map<RefusalReason, LongAdder> refusals = new EnumMap<>(RefusalReason.class);
    final LongAdder claimsUnprepared = new LongAdder();
    final LongAdder unprepareErrors = new LongAdder();
    final LongAdder prepareNanos = new LongAdder();
    /** Calls refused at once: every call slot was taken. */
    final LongAdder callsRefusedBusy = new LongAdder();
    /** Calls their client gave up on (deadline, cancel) before they were answered. */
    final LongAdder callsAbandoned = new LongAdder();
    /** Non-cumulative counts per bucket; the last one is +Inf. */
    final LongAdder[] prepareBuckets = new LongAdder[PREPARE_BUCKETS.length + 1];

    DraStats() {
        for (RefusalReason reason : RefusalReason.values()) {
            refusals.put(reason, new LongAdder());
        }
        for (int i = 0; i < prepareBuckets.length; i++) {
            prepareBuckets[i] = new LongAdder();
        }
    }

    /** One claim of a NodePrepareResources call answered. */
    void countPrepared(PrepareOutcome outcome) {
        if (outcome.error().isPresent()) {
            claimsRefused.increment();
            outcome.reason().ifPresent(r -> refusals.get(r).increment());
        } else {
            claimsPrepared.increment();
        }
    }

    /** One NodePrepareResources call, all its claims. */
    void observePrepare(long nanos) {
        prepareNanos.add(nanos);
        double seconds = nanos / 1e9;
        int bucket = 0;
        while (bucket < PREPARE_BUCKETS.length && seconds > PREPARE_BUCKETS[bucket]) {
            bucket++;
        }
        prepareBuckets[bucket].increment();
    }
}
