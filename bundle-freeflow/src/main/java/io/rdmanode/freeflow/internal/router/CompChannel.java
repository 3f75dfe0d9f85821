// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import java.util.concurrent.LinkedBlockingQueue;

/**
 * A completion channel: an eventfd (semaphore mode) whose duplicate the client holds and polls, and the queue of
 * CQ handles GET_CQ_EVENT hands out. Handle 0 in the queue wakes a blocked GET_CQ_EVENT when the channel goes.
 */
final class CompChannel {
    final Tenant tenant;
    final int fd;
    final LinkedBlockingQueue<Integer> events = new LinkedBlockingQueue<>();
    volatile boolean closed;

    CompChannel(Tenant tenant, int fd) {
        this.tenant = tenant;
        this.fd = fd;
    }
}
