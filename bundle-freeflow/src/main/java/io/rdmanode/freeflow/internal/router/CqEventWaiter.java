// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.wire.CqEventResponse;

/**
 * A GET_CQ_EVENT parked on its channel until a CQ fires: no thread waits for it. Called with the router's lock held
 * (from the poller thread, when a completion lands), so an implementation hands the answer off and never blocks.
 */
interface CqEventWaiter {
    /** Takes the waiter for one answer; false when its connection has already gone (then it is dropped). */
    boolean claim();

    /** The event for this waiter (claimed). */
    void deliver(CqEventResponse event);

    /** The channel went (destroyed, or its tenant reclaimed): no event will come. */
    void abandon();
}
