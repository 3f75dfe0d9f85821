// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;

/**
 * What every server of one host shares to bound its calls: the limits, the host-wide call slots and the timer
 * that ends calls past their deadline.
 */
record HostBounds(CallLimits limits, Semaphore hostCalls, ScheduledExecutorService timer) {

    HostBounds(CallLimits limits, ScheduledExecutorService timer) {
        this(limits, new Semaphore(limits.callsTotal()), timer);
    }
}
