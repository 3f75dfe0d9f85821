// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** POLL_CQ: CQ handle and the number of completions the caller has room for. */
public record PollCqRequest(int cqHandle, int ne) {
    static final Layout L = LayoutTable.struct("poll_cq_req");
    public static final int MAX_NE = (1 << 20) / 48 - 1;

    public static PollCqRequest decode(ByteBuffer b) {
        int ne = Wire.i32(b, L.off("ne"));
        if (ne < 0 || ne > MAX_NE) {
            throw new WireException(Errno.EINVAL, "poll of " + ne + " completions, 0.." + MAX_NE + " allowed");
        }
        return new PollCqRequest(Wire.handle(b, L.off("cq_handle"), "CQ"), ne);
    }
}
