// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import java.util.ArrayDeque;

/**
 * A completion channel: an eventfd (semaphore mode) whose duplicate the client holds and polls, the queue of CQ
 * handles that fired, and the GET_CQ_EVENT requests parked until one does. Guarded by the router's monitor.
 */
final class CompChannel {
    final Tenant tenant;
    final int fd;
    final ArrayDeque<Integer> events = new ArrayDeque<>();
    final ArrayDeque<CqEventWaiter> waiters = new ArrayDeque<>();
    volatile boolean closed;

    CompChannel(Tenant tenant, int fd) {
        this.tenant = tenant;
        this.fd = fd;
    }
}
