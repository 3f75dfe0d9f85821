// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** {@code struct ibv_wc} (48 bytes), as the router writes it into a POLL_CQ answer. */
public record WorkCompletion(long wrId, int status, int opcode, int byteLen, int immData, int qpNum, int srcQp,
                             int wcFlags) {
    public static final int SUCCESS = 0;
    public static final int LOC_LEN_ERR = 1;
    public static final int LOC_QP_OP_ERR = 2;
    public static final int LOC_PROT_ERR = 4;
    public static final int WR_FLUSH_ERR = 5;
    public static final int REM_INV_REQ_ERR = 9;
    public static final int REM_ACCESS_ERR = 10;
    public static final int REM_OP_ERR = 11;
    public static final int RETRY_EXC_ERR = 12;
    public static final int RNR_RETRY_EXC_ERR = 13;
    public static final int WC_SEND = 0;
    public static final int WC_RDMA_WRITE = 1;
    public static final int WC_RDMA_READ = 2;
    public static final int WC_RECV = 128;
    public static final int WC_RECV_RDMA_WITH_IMM = 129;
    public static final int WITH_IMM = 2;
    static final Layout L = LayoutTable.struct("wc");
    public static final int SIZE = L.size();
    private static final int WR_ID = L.off("wr_id");
    private static final int STATUS = L.off("status");
    private static final int OPCODE = L.off("opcode");
    private static final int BYTE_LEN = L.off("byte_len");
    private static final int IMM = L.off("imm_data");
    private static final int QP_NUM = L.off("qp_num");
    private static final int SRC_QP = L.off("src_qp");
    private static final int FLAGS = L.off("wc_flags");

    /** Writes this completion at {@code at}, zeroing the fields the router does not fill. */
    public void encode(ByteBuffer b, int at) {
        for (int i = 0; i < SIZE; i += 8) {
            b.putLong(at + i, 0L);
        }
        b.putLong(at + WR_ID, wrId).putInt(at + STATUS, status).putInt(at + OPCODE, opcode)
                .putInt(at + BYTE_LEN, byteLen).putInt(at + IMM, immData).putInt(at + QP_NUM, qpNum)
                .putInt(at + SRC_QP, srcQp).putInt(at + FLAGS, wcFlags);
    }
}
