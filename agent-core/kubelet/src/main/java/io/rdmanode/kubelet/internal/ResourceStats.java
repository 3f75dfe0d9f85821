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
    final AtomicLong advertisedAndHealthy = new AtomicLong();   // high int advertised, low int healthy: one read

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
