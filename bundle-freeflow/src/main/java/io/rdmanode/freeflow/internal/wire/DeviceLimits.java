// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/**
 * What the router's virtual device advertises (QUERY_DEV and EXP_QUERY_DEV answers): the router's per-tenant limits,
 * each capped by the real device's with the verbs transport.
 */
public record DeviceLimits(String fwVer, long nodeGuid, long maxMrSize, int maxQp, int maxQpWr, int maxSge,
                           int maxCq, int maxCqe, int maxMr, int maxPd, int maxSrq, int maxSrqWr, int maxSrqSge,
                           int maxQpRdAtom) {
    /** The ConnectX-3 ids the genuine client's libmlx4 table matches (freeflow.md §1.1). */
    public static final int VENDOR_MELLANOX = 0x02c9;
    public static final int PART_CX3 = 4099;

    /**
     * The GUID as the verbs structs carry it: {@code __be64}, network byte order (ibv_devinfo prints
     * {@code be64toh(node_guid)}, which then matches the node_guid file of the client's sysfs view).
     */
    public long nodeGuidBigEndian() {
        return Long.reverseBytes(nodeGuid);
    }

    /**
     * Writes the {@code ibv_device_attr} fields both answers carry, by name: QUERY_DEV's raw struct and
     * EXP_QUERY_DEV's kernel response name them alike, at their own offsets.
     */
    void putAttributes(ByteBuffer b, Layout l) {
        b.putLong(l.off("node_guid"), nodeGuidBigEndian()).putLong(l.off("sys_image_guid"), nodeGuidBigEndian())
                .putLong(l.off("max_mr_size"), maxMrSize).putLong(l.off("page_size_cap"), 4096)
                .putInt(l.off("vendor_id"), VENDOR_MELLANOX).putInt(l.off("vendor_part_id"), PART_CX3)
                .putInt(l.off("max_qp"), maxQp).putInt(l.off("max_qp_wr"), maxQpWr)
                .putInt(l.off("max_sge"), maxSge).putInt(l.off("max_sge_rd"), maxSge)
                .putInt(l.off("max_cq"), maxCq).putInt(l.off("max_cqe"), maxCqe)
                .putInt(l.off("max_mr"), maxMr).putInt(l.off("max_pd"), maxPd)
                .putInt(l.off("max_qp_rd_atom"), maxQpRdAtom).putInt(l.off("max_qp_init_rd_atom"), maxQpRdAtom)
                .putInt(l.off("max_srq"), maxSrq).putInt(l.off("max_srq_wr"), maxSrqWr)
                .putInt(l.off("max_srq_sge"), maxSrqSge).putShort(l.off("max_pkeys"), (short) 1);
        b.put(l.off("phys_port_cnt"), (byte) 1);
    }
}
