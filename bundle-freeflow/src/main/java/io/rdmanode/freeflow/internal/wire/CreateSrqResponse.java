// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** CREATE_SRQ: handle and the SRQ mailbox's shm name; handle 0 and no name when refused. */
public record CreateSrqResponse(int handle, String shmName) {
    static final Layout L = LayoutTable.struct("create_srq_rsp");

    public ByteBuffer encode() {
        ByteBuffer b = Wire.allocate(L.size()).putInt(L.off("srq_handle"), handle);
        Wire.putCstring(b, L.off("shm_name"), 100, shmName);
        return b;
    }
}
