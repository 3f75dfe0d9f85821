// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.rdmanode.kubelet.ResourceFigures;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/** Counters of one served resource; written from RPC and registrar threads, read at scrape time. */
final class ResourceStats {

    final LongAdder registrations = new LongAdder();
    final LongAdder registrationFailures = new LongAdder();
    final LongAdder allocations = new LongAdder();
    final LongAdder allocationFailures = new LongAdder();
    final LongAdder allocateNanos = new LongAdder();
    final LongAdder listAndWatchUpdates = new LongAdder();
    final LongAdder kubeletRestarts = new LongAdder();
    /** Calls refused before their handler ran because no slot was free (RESOURCE_EXHAUSTED). */
    final LongAdder refusedBusy = new LongAdder();
    /** Requests over the resource's size limit (RESOURCE_EXHAUSTED). */
    final LongAdder refusedOversize = new LongAdder();
    /** Requests that are not the method's protobuf message (INVALID_ARGUMENT). */
    final LongAdder refusedMalformed = new LongAdder();
    /** Unary calls answered DEADLINE_EXCEEDED by the host's call timeout. */
    final LongAdder callsTimedOut = new LongAdder();
    /** Upper bounds (seconds) of the Allocate latency histogram; an Allocate is a map lookup plus I/O-free work. */
    static final double[] ALLOCATE_BUCKETS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1};
    /** Non-cumulative counts per bucket; the last one is +Inf. */
    final LongAdder[] allocateBuckets = newAdders(ALLOCATE_BUCKETS.length + 1);
    final AtomicLong advertisedAndHealthy = new AtomicLong();   // high int advertised, low int healthy: one read

    private static LongAdder[] newAdders(int n) {
        LongAdder[] adders = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            adders[i] = new LongAdder();
        }
        return adders;
    }

    /** One answered Allocate call (success or error), for the total time and the latency histogram. */
    void observeAllocate(long nanos) {
        allocateNanos.add(nanos);
        double seconds = nanos / 1e9;
        int bucket = 0;
        while (bucket < ALLOCATE_BUCKETS.length && seconds > ALLOCATE_BUCKETS[bucket]) {
            bucket++;
        }
        allocateBuckets[bucket].increment();
    }

    void devices(int advertised, int healthy) {
        advertisedAndHealthy.set(((long) advertised << 32) | (healthy & 0xffffffffL));
    }

    ResourceFigures figures(String resourceName, boolean registered) {
        long devices = advertisedAndHealthy.get();
        return new ResourceFigures(resourceName, registrations.sum(), registrationFailures.sum(), allocations.sum(),
                allocationFailures.sum(), allocateNanos.sum() / 1e9, listAndWatchUpdates.sum(),
                (int) (devices >>> 32), (int) devices, registered);
    }
}
