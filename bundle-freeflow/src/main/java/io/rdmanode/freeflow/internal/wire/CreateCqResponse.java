// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** CREATE_CQ: depth, handle and the CQ mailbox's shm name; handle 0 and no name when refused. */
public record CreateCqResponse(int cqe, int handle, String shmName) {
    static final Layout L = LayoutTable.struct("create_cq_rsp");

    public ByteBuffer encode() {
        ByteBuffer b = Wire.allocate(L.size()).putInt(L.off("cqe"), cqe).putInt(L.off("handle"), handle);
        Wire.putCstring(b, L.off("shm_name"), 100, shmName);
        return b;
    }
}
