// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** QUERY_QP: ret_errno + a synthesised kernel {@code ibv_query_qp_resp} at +8. */
public record QueryQpResponse(int retErrno, QpAttributes a) {
    static final Layout L = LayoutTable.struct("query_qp_rsp");

    public ByteBuffer encode() {
        ByteBuffer b = Wire.allocate(L.size()).putInt(L.off("ret_errno"), retErrno);
        if (a == null) {
            return b;
        }
        b.put(L.off("dgid"), a.dgid()).putShort(L.off("dlid"), (short) a.dlid())
                .putInt(L.off("max_send_wr"), a.maxSendWr()).putInt(L.off("max_recv_wr"), a.maxRecvWr())
                .putInt(L.off("max_send_sge"), a.maxSendSge()).putInt(L.off("max_recv_sge"), a.maxRecvSge())
                .putInt(L.off("qkey"), (int) a.qkey()).putInt(L.off("rq_psn"), (int) a.rqPsn())
                .putInt(L.off("sq_psn"), (int) a.sqPsn()).putInt(L.off("dest_qp_num"), a.destQpNum())
                .putInt(L.off("qp_access_flags"), a.accessFlags());
        b.put(L.off("qp_state"), (byte) a.state()).put(L.off("cur_qp_state"), (byte) a.state())
                .put(L.off("path_mtu"), (byte) a.pathMtu()).put(L.off("min_rnr_timer"), (byte) a.minRnrTimer())
                .put(L.off("port_num"), (byte) a.portNum()).put(L.off("timeout"), (byte) a.timeout())
                .put(L.off("retry_cnt"), (byte) a.retryCnt()).put(L.off("rnr_retry"), (byte) a.rnrRetry());
        return b;
    }
}
