// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.rdmacm;

import java.nio.ByteBuffer;

/** A CM_GET_EVENT parked on its channel until the kernel reports an event: no thread blocks for it. */
public interface CmEventWaiter {

    /** True once, if the waiter still wants an event (its connection is open). */
    boolean claim();

    /** The 336-byte answer: {@code ret_errno} 0 and the event at 8. */
    void deliver(ByteBuffer answer);

    /** The channel went away (destroyed, or its client reclaimed) before an event came. */
    void abandon();
}
