// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** MODIFY_SRQ: handle, {@code struct ibv_srq_attr} (max_wr, max_sge, srq_limit) and which of them to apply. */
public record ModifySrqRequest(int handle, int maxWr, int srqLimit, int mask) {
    /** {@code IBV_SRQ_MAX_WR}: resize. */
    public static final int MAX_WR = 1;
    /** {@code IBV_SRQ_LIMIT}: arm the limit event. */
    public static final int LIMIT = 2;
    static final Layout L = LayoutTable.struct("modify_srq_req");

    public static ModifySrqRequest decode(ByteBuffer b) {
        int mask = Wire.i32(b, L.off("mask"));
        if ((mask & ~(MAX_WR | LIMIT)) != 0) {
            throw new WireException(Errno.EINVAL, "MODIFY_SRQ mask 0x" + Integer.toHexString(mask));
        }
        return new ModifySrqRequest(Wire.handle(b, L.off("srq_handle"), "SRQ"), Wire.i32(b, L.off("max_wr")),
                Wire.i32(b, L.off("srq_limit")), mask);
    }
}
