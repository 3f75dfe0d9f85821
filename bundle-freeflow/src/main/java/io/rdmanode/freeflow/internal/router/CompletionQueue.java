// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.wire.WorkCompletion;
import java.util.ArrayDeque;

/** A CQ: completions in the order they happened, its mailbox, and its channel arming. Guarded by the router. */
final class CompletionQueue {
    final Tenant tenant;
    final int handle;
    final int depth;
    final Mailbox mailbox;
    final CompChannel channel;
    final ArrayDeque<WorkCompletion> entries = new ArrayDeque<>();
    int users;
    boolean armed;
    /** The last REQ_NOTIFY_CQ asked for solicited completions only. */
    boolean solicitedOnly;
    boolean overflowed;
    int compEvents;
    int ackedEvents;

    CompletionQueue(Tenant tenant, int handle, int depth, Mailbox mailbox, CompChannel channel) {
        this.tenant = tenant;
        this.handle = handle;
        this.depth = depth;
        this.mailbox = mailbox;
        this.channel = channel;
    }
}
