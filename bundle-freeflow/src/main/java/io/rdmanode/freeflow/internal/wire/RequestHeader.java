// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** {@code FfrRequestHeader} (12 bytes): client_id (FFR_ID, a label only), function id, body size. */
public record RequestHeader(int clientId, int func, long bodySize) {
    public static final Layout L = LayoutTable.struct("header");
    public static final int SIZE = L.size();

    public static RequestHeader decode(ByteBuffer b) {
        return new RequestHeader(Wire.i32(b, L.off("client_id")), Wire.i32(b, L.off("func")),
                Wire.u32(b, L.off("body_size")));
    }

    public ByteBuffer encode() {
        ByteBuffer b = Wire.allocate(SIZE);
        b.putInt(L.off("client_id"), clientId).putInt(L.off("func"), func).putInt(L.off("body_size"), (int) bodySize);
        return b;
    }
}
