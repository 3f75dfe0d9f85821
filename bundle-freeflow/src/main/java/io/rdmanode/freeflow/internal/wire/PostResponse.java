// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** POST_SEND / POST_RECV / POST_SRQ_RECV: ret_errno and bad_wr as the client decodes it, 1-based (0 = none). */
public record PostResponse(int retErrno, int badWr) {
    static final Layout L = LayoutTable.struct("post_rsp");
    public static final int SIZE = L.size();
    private static final int RET = L.off("ret_errno");
    private static final int BAD = L.off("bad_wr");

    public void encode(ByteBuffer b, int at) {
        b.putInt(at + RET, retErrno).putInt(at + BAD, badWr);
    }

    public ByteBuffer encode() {
        ByteBuffer b = Wire.allocate(SIZE);
        encode(b, 0);
        return b;
    }
}
