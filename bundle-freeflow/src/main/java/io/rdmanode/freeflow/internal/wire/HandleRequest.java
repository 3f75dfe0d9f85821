// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** The 4-byte {@code u32 handle} body of DEALLOC_PD, DESTROY_CQ, DESTROY_QP, DEREG_MR, DESTROY_SRQ, DESTROY_AH. */
public record HandleRequest(int handle) {
    static final Layout L = LayoutTable.struct("handle_req");

    public static HandleRequest decode(ByteBuffer b, String what) {
        return new HandleRequest(Wire.handle(b, L.off("handle"), what));
    }
}
