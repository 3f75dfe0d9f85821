// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/**
 * MODIFY_QP: the handle, a raw {@code struct ibv_qp_attr} at +8 and the attribute mask at +144. Only the
 * attributes the software backend uses are decoded; the others are accepted and ignored as a NIC would.
 */
public record ModifyQpRequest(int handle, int attrMask, int qpState, int curQpState, int pathMtu, long qkey,
                              long rqPsn, long sqPsn, int destQpNum, int accessFlags, byte[] dgid, int dlid,
                              int portNum, int minRnrTimer, int timeout, int retryCnt, int rnrRetry,
                              int maxRdAtomic, int maxDestRdAtomic, int sgidIndex) {
    static final Layout L = LayoutTable.struct("modify_qp_req");

    public static ModifyQpRequest decode(ByteBuffer b) {
        byte[] dgid = new byte[16];
        b.get(L.off("dgid"), dgid);
        return new ModifyQpRequest(Wire.handle(b, L.off("handle"), "QP"), Wire.i32(b, L.off("attr_mask")),
                Wire.i32(b, L.off("qp_state")), Wire.i32(b, L.off("cur_qp_state")), Wire.i32(b, L.off("path_mtu")),
                Wire.u32(b, L.off("qkey")), Wire.u32(b, L.off("rq_psn")), Wire.u32(b, L.off("sq_psn")),
                Wire.i32(b, L.off("dest_qp_num")), Wire.i32(b, L.off("qp_access_flags")), dgid,
                Wire.u16(b, L.off("dlid")), Wire.u8(b, L.off("port_num")), Wire.u8(b, L.off("min_rnr_timer")),
                Wire.u8(b, L.off("timeout")), Wire.u8(b, L.off("retry_cnt")), Wire.u8(b, L.off("rnr_retry")),
                Wire.u8(b, L.off("max_rd_atomic")), Wire.u8(b, L.off("max_dest_rd_atomic")),
                Wire.u8(b, L.off("sgid_index")));
    }
}
