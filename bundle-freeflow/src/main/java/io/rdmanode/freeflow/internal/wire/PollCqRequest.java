// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** POLL_CQ: CQ handle and the number of completions the caller has room for. */
public record PollCqRequest(int cqHandle, int ne) {
    static final Layout L = LayoutTable.struct("poll_cq_req");
    public static final int MAX_NE = (1 << 20) / 48 - 1;
    private static final int NE = L.off("ne");
    private static final int CQ_HANDLE = L.off("cq_handle");

    public static PollCqRequest decode(ByteBuffer b) {
        return decode(b, 0);
    }

    /** The body at {@code base} of b (a mailbox's request area). */
    public static PollCqRequest decode(ByteBuffer b, int base) {
        int ne = ne(b, base);
        return new PollCqRequest(cqHandle(b, base), ne);
    }

    /** The ne field of the body at {@code base}, checked as {@link #decode} checks it; the fast path's read (no object). */
    public static int ne(ByteBuffer b, int base) {
        int ne = Wire.i32(b, base + NE);
        if (ne < 0 || ne > MAX_NE) {
            throw new WireException(Errno.EINVAL, "poll of " + ne + " completions, 0.." + MAX_NE + " allowed");
        }
        return ne;
    }

    /** The CQ handle of the body at {@code base}, checked as {@link #decode} checks it. */
    public static int cqHandle(ByteBuffer b, int base) {
        return Wire.handle(b, base + CQ_HANDLE, "CQ");
    }
}
