// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

import java.util.ArrayList;
import java.util.List;

/**
 * The variable body of POST_SEND, POST_RECV and POST_SRQ_RECV (fast and slow path alike): a 32-byte kernel-style
 * header (qp/srq handle, wr_count, sge_count), the work requests, all SGEs in order, and for UD one u32 AH handle
 * per WR. The body size must be exactly what the counts say and the WRs' num_sge must add up to sge_count.
 */
public record PostRequest(int handle, List<SendWr> sends, List<RecvWr> recvs) {
    static final Layout H = LayoutTable.struct("post_hdr");
    public static final int HEADER = H.size();
    // Offsets resolved once: this runs for every fast-path post, millions of times a second.
    private static final int QP_HANDLE = H.off("qp_handle");
    private static final int WR_COUNT = H.off("wr_count");
    private static final int SGE_COUNT = H.off("sge_count");

    public static PostRequest decodeSend(ByteBuffer b, int bodySize) {
        return decode(b, 0, bodySize, true);
    }

    public static PostRequest decodeRecv(ByteBuffer b, int bodySize) {
        return decode(b, 0, bodySize, false);
    }

    /** The body at {@code base} of b (a mailbox's request area: no slice per request). */
    public static PostRequest decodeSend(ByteBuffer b, int base, int bodySize) {
        return decode(b, base, bodySize, true);
    }

    public static PostRequest decodeRecv(ByteBuffer b, int base, int bodySize) {
        return decode(b, base, bodySize, false);
    }

    private static PostRequest decode(ByteBuffer b, int base, int bodySize, boolean send) {
        if (bodySize < HEADER) {
            throw new WireException(Errno.EINVAL, "post body of " + bodySize + " bytes, shorter than its header");
        }
        int handle = Wire.handle(b, base + QP_HANDLE, send ? "QP" : "QP/SRQ");
        long wrCount = Wire.u32(b, base + WR_COUNT);
        long sgeCount = Wire.u32(b, base + SGE_COUNT);
        int wrSize = send ? SendWr.SIZE : RecvWr.SIZE;
        long expected = HEADER + wrCount * wrSize + sgeCount * Sge.SIZE;
        boolean withAh = send && bodySize == expected + wrCount * 4;
        if (bodySize != expected && !withAh) {
            throw new WireException(Errno.EINVAL, "post body of " + bodySize + " bytes for " + wrCount + " WRs and "
                    + sgeCount + " SGEs (expected " + expected + ")");
        }
        int sgeAt = base + (int) (HEADER + wrCount * wrSize);
        int ahAt = sgeAt + (int) (sgeCount * Sge.SIZE);
        int used = 0;
        List<SendWr> sends = send ? new ArrayList<>((int) wrCount) : List.of();
        List<RecvWr> recvs = send ? List.of() : new ArrayList<>((int) wrCount);
        for (int i = 0; i < wrCount; i++) {
            int at = base + HEADER + i * wrSize;
            int n = send ? SendWr.numSge(b, at) : RecvWr.numSge(b, at);
            if (n < 0 || used + (long) n > sgeCount) {
                throw new WireException(Errno.EINVAL, "WR " + i + " claims " + n + " SGEs, " + (sgeCount - used) + " left");
            }
            Sge[] sges = new Sge[n];
            for (int j = 0; j < n; j++) {
                sges[j] = Sge.decode(b, sgeAt + (used + j) * Sge.SIZE);
            }
            used += n;
            if (send) {
                sends.add(SendWr.decode(b, at, withAh ? b.getInt(ahAt + i * 4) : 0, sges));
            } else {
                recvs.add(RecvWr.decode(b, at, sges));
            }
        }
        if (used != sgeCount) {
            throw new WireException(Errno.EINVAL, "WRs use " + used + " SGEs, header says " + sgeCount);
        }
        return new PostRequest(handle, sends, recvs);
    }
}
