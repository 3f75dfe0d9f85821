// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** REG_MR: handle, lkey, rkey (equal, as on mlx4) and the MR file's shm name; handle 0 when refused. */
public record RegMrResponse(int handle, int lkey, int rkey, String shmName) {
    static final Layout L = LayoutTable.struct("reg_mr_rsp");

    public ByteBuffer encode() {
        ByteBuffer b = Wire.allocate(L.size()).putInt(L.off("handle"), handle).putInt(L.off("lkey"), lkey)
                .putInt(L.off("rkey"), rkey);
        Wire.putCstring(b, L.off("shm_name"), 100, shmName);
        return b;
    }
}
