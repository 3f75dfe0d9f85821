// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** {@code struct ibv_sge} as the Freeflow client sends it: addr is the offset from the MR's start, not a pointer. */
public record Sge(long offset, int length, int lkey) {
    static final Layout L = LayoutTable.struct("sge");
    public static final int SIZE = L.size();
    private static final int ADDR = L.off("addr");
    private static final int LENGTH = L.off("length");
    private static final int LKEY = L.off("lkey");

    static Sge decode(ByteBuffer b, int at) {
        return new Sge(b.getLong(at + ADDR), b.getInt(at + LENGTH), b.getInt(at + LKEY));
    }

    /** Length as the unsigned value it is. */
    public long len() {
        return length & 0xffffffffL;
    }
}
