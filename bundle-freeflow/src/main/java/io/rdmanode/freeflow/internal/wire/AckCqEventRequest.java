// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** ACK_CQ_EVENT: CQ handle and how many events the client acknowledges. */
public record AckCqEventRequest(int cqHandle, long nevents) {
    static final Layout L = LayoutTable.struct("ack_cq_event_req");

    public static AckCqEventRequest decode(ByteBuffer b) {
        return new AckCqEventRequest(Wire.handle(b, L.off("cq_handle"), "CQ"), Wire.u32(b, L.off("nevents")));
    }
}
