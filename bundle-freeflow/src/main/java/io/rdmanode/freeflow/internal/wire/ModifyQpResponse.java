// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** MODIFY_QP: ret (0 or errno; the client sets errno from it) and the handle. */
public record ModifyQpResponse(int ret, int handle) {
    static final Layout L = LayoutTable.struct("modify_qp_rsp");

    public ByteBuffer encode() {
        return Wire.allocate(L.size()).putInt(L.off("ret"), ret).putInt(L.off("handle"), handle);
    }
}
