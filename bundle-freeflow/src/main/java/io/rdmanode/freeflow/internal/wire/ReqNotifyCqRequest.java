// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** REQ_NOTIFY_CQ: arm a CQ for one completion event on its channel. */
public record ReqNotifyCqRequest(int cqHandle, boolean solicitedOnly) {
    static final Layout L = LayoutTable.struct("req_notify_cq_req");

    public static ReqNotifyCqRequest decode(ByteBuffer b) {
        return new ReqNotifyCqRequest(Wire.handle(b, L.off("cq_handle"), "CQ"), Wire.i32(b, L.off("solicited_only")) != 0);
    }
}
