// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.wire.RecvWr;
import java.util.ArrayDeque;

/**
 * An SRQ: one receive queue that every QP created with it takes its receives from, in posting order, and its
 * mailbox for POST_SRQ_RECV. A QP that fails does not flush it: its receives belong to the SRQ, not to the QP.
 * Guarded by the router.
 */
final class SharedReceiveQueue {
    final Tenant tenant;
    final int handle;
    final int pd;
    final int maxSge;
    final Mailbox mailbox;
    final ArrayDeque<RecvWr> rq = new ArrayDeque<>();
    int maxWr;
    /** The armed limit (MODIFY_SRQ's IBV_SRQ_LIMIT), 0 when not armed: one SRQ_LIMIT_REACHED disarms it. */
    int limit;
    /** QPs created with this SRQ; it cannot be destroyed while any exists. */
    int users;

    SharedReceiveQueue(Tenant tenant, int handle, int pd, int maxWr, int maxSge, Mailbox mailbox) {
        this.tenant = tenant;
        this.handle = handle;
        this.pd = pd;
        this.maxWr = maxWr;
        this.maxSge = maxSge;
        this.mailbox = mailbox;
    }
}
