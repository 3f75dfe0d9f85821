// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** CREATE_AH: the AH's handle and ret (0, or the errno with handle 0). */
public record CreateAhResponse(int handle, int ret) {
    static final Layout L = LayoutTable.struct("create_ah_rsp");

    public ByteBuffer encode() {
        return Wire.allocate(L.size()).putInt(L.off("ah_handle"), handle).putInt(L.off("ret"), ret);
    }
}
