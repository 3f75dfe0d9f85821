// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** The 4-byte {@code i32 ret} answer (0 or a positive errno) of the destroy/dereg/notify calls. */
public record RetResponse(int ret) {
    static final Layout L = LayoutTable.struct("ret_rsp");

    public ByteBuffer encode() {
        return Wire.allocate(L.size()).putInt(L.off("ret"), ret);
    }
}
