// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** CREATE_QP: PD, type (RC=2, UC=3, UD=4), sq_sig_all, CQs, SRQ (0 = none) and capacities. */
public record CreateQpRequest(int pdHandle, int qpType, boolean sqSigAll, int sendCq, int recvCq, int srq,
                              int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInline) {
    static final Layout L = LayoutTable.struct("create_qp_req");

    public static CreateQpRequest decode(ByteBuffer b) {
        int srq = Wire.i32(b, L.off("srq_handle"));
        if (srq != 0) {
            srq = Wire.handle(b, L.off("srq_handle"), "SRQ");
        }
        return new CreateQpRequest(Wire.handle(b, L.off("pd_handle"), "PD"), Wire.i32(b, L.off("qp_type")),
                Wire.i32(b, L.off("sq_sig_all")) != 0, Wire.handle(b, L.off("send_cq_handle"), "send CQ"),
                Wire.handle(b, L.off("recv_cq_handle"), "recv CQ"), srq,
                Wire.i32(b, L.off("max_send_wr")), Wire.i32(b, L.off("max_recv_wr")),
                Wire.i32(b, L.off("max_send_sge")), Wire.i32(b, L.off("max_recv_sge")),
                Wire.i32(b, L.off("max_inline_data")));
    }
}
