// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** CREATE_QP: QPN, handle, granted capacities and the QP mailbox's shm name; handle 0 when refused. */
public record CreateQpResponse(int qpNum, int handle, int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge,
                               String shmName) {
    static final Layout L = LayoutTable.struct("create_qp_rsp");

    public ByteBuffer encode() {
        ByteBuffer b = Wire.allocate(L.size()).putInt(L.off("qp_num"), qpNum).putInt(L.off("handle"), handle)
                .putInt(L.off("max_send_wr"), maxSendWr).putInt(L.off("max_recv_wr"), maxRecvWr)
                .putInt(L.off("max_send_sge"), maxSendSge).putInt(L.off("max_recv_sge"), maxRecvSge)
                .putInt(L.off("max_inline_data"), 0);
        Wire.putCstring(b, L.off("shm_name"), 100, shmName);
        return b;
    }
}
