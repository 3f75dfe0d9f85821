// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** GET_CQ_EVENT / ACK_CQ_EVENT: the CQ and its completion/async event counters (cq_handle 0 = error). */
public record CqEventResponse(int cqHandle, int compEvents, int asyncEvents) {
    static final Layout L = LayoutTable.struct("cq_event_rsp");

    public ByteBuffer encode() {
        return Wire.allocate(L.size()).putInt(L.off("cq_handle"), cqHandle)
                .putInt(L.off("comp_events_completed"), compEvents).putInt(L.off("async_events_completed"), asyncEvents);
    }
}
