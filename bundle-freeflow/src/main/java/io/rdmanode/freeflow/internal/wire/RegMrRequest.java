// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** REG_MR: PD, length, access flags; a caller-chosen shm name (ibv_reg_mr_ff) is refused: the router names files. */
public record RegMrRequest(int pdHandle, long memSize, int accessFlags, String shmName) {
    static final Layout L = LayoutTable.struct("reg_mr_req");

    public static RegMrRequest decode(ByteBuffer b) {
        long size = Wire.u32(b, L.off("mem_size"));
        if (size == 0) {
            throw new WireException(Errno.EINVAL, "MR length 0");
        }
        return new RegMrRequest(Wire.handle(b, L.off("pd_handle"), "PD"), size, Wire.i32(b, L.off("access_flags")),
                Wire.cstring(b, L.off("shm_name"), 100));
    }
}
