// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/**
 * One {@code struct ibv_send_wr} of a POST_SEND body, with its SGEs; next/sg_list (and a UD WR's ah) are client
 * pointers, ignored. For a UD QP {@code rkey} is the union's remote_qpn, {@code remoteQkey} its remote_qkey and
 * {@code ah} the AH handle the body carries for the WR after the SGEs (0 for other QPs).
 */
public record SendWr(long wrId, int opcode, int sendFlags, int immData, long remoteAddr, int rkey, int remoteQkey,
                     int ah, Sge[] sges) {
    public static final int OP_RDMA_WRITE = 0;
    public static final int OP_RDMA_WRITE_WITH_IMM = 1;
    public static final int OP_SEND = 2;
    public static final int OP_SEND_WITH_IMM = 3;
    public static final int OP_RDMA_READ = 4;
    public static final int FLAG_SIGNALED = 2;
    static final Layout L = LayoutTable.struct("send_wr");
    public static final int SIZE = L.size();
    private static final int WR_ID = L.off("wr_id");
    private static final int NUM_SGE = L.off("num_sge");
    private static final int OPCODE = L.off("opcode");
    private static final int FLAGS = L.off("send_flags");
    private static final int IMM = L.off("imm_data");
    private static final int REMOTE_ADDR = L.off("remote_addr");
    private static final int RKEY = L.off("rkey");
    private static final int REMOTE_QKEY = L.off("remote_qkey");

    static int numSge(ByteBuffer b, int at) {
        return b.getInt(at + NUM_SGE);
    }

    static SendWr decode(ByteBuffer b, int at, int ah, Sge[] sges) {
        return new SendWr(b.getLong(at + WR_ID), b.getInt(at + OPCODE), b.getInt(at + FLAGS), b.getInt(at + IMM),
                b.getLong(at + REMOTE_ADDR), b.getInt(at + RKEY), b.getInt(at + REMOTE_QKEY), ah, sges);
    }

    public boolean signaled() {
        return (sendFlags & FLAG_SIGNALED) != 0;
    }
}
