// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** ALLOC_PD: the PD handle; 0 means refused (the struct has no error field and the client checks none). */
public record AllocPdResponse(int pdHandle) {
    static final Layout L = LayoutTable.struct("alloc_pd_rsp");

    public ByteBuffer encode() {
        return Wire.allocate(L.size()).putInt(L.off("pd_handle"), pdHandle);
    }
}
