// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** One {@code struct ibv_recv_wr} of a POST_RECV / POST_SRQ_RECV body, with its SGEs. */
public record RecvWr(long wrId, Sge[] sges) {
    static final Layout L = LayoutTable.struct("recv_wr");
    public static final int SIZE = L.size();
    private static final int WR_ID = L.off("wr_id");
    private static final int NUM_SGE = L.off("num_sge");

    static int numSge(ByteBuffer b, int at) {
        return b.getInt(at + NUM_SGE);
    }

    static RecvWr decode(ByteBuffer b, int at, Sge[] sges) {
        return new RecvWr(b.getLong(at + WR_ID), sges);
    }
}
