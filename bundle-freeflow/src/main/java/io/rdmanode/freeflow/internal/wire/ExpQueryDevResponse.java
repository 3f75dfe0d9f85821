// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/**
 * EXP_QUERY_DEV: ret_errno + a synthesised kernel {@code ibv_exp_query_device_resp} (the router has no kernel). It
 * advertises the same device as QUERY_DEV: the genuine client's {@code ibv_query_device} goes through this one
 * (ibv_devinfo, perftest read max_qp_init_rd_atom, max_srq and max_pkeys from it).
 */
public record ExpQueryDevResponse(DeviceLimits d) {
    static final Layout L = LayoutTable.struct("exp_query_dev_rsp");

    public ByteBuffer encode() {
        ByteBuffer b = Wire.allocate(L.size());
        b.putLong(L.off("node_guid"), d.nodeGuidBigEndian()).putLong(L.off("sys_image_guid"), d.nodeGuidBigEndian())
                .putLong(L.off("max_mr_size"), d.maxMrSize()).putLong(L.off("page_size_cap"), 4096)
                .putInt(L.off("vendor_id"), DeviceLimits.VENDOR_MELLANOX).putInt(L.off("vendor_part_id"), DeviceLimits.PART_CX3)
                .putInt(L.off("max_qp"), d.maxQp()).putInt(L.off("max_qp_wr"), d.maxQpWr())
                .putInt(L.off("max_sge"), d.maxSge()).putInt(L.off("max_sge_rd"), d.maxSge())
                .putInt(L.off("max_cq"), d.maxCq()).putInt(L.off("max_cqe"), d.maxCqe())
                .putInt(L.off("max_mr"), d.maxMr()).putInt(L.off("max_pd"), d.maxPd())
                .putInt(L.off("max_qp_rd_atom"), 16).putInt(L.off("max_qp_init_rd_atom"), 16)
                .putInt(L.off("max_srq"), d.maxSrq()).putInt(L.off("max_srq_wr"), d.maxQpWr())
                .putInt(L.off("max_srq_sge"), d.maxSge()).putShort(L.off("max_pkeys"), (short) 1);
        b.put(L.off("phys_port_cnt"), (byte) 1);
        return b;
    }
}
