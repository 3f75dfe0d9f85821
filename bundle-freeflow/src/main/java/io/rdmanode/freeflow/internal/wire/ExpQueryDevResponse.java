// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** EXP_QUERY_DEV: ret_errno + a synthesised kernel {@code ibv_exp_query_device_resp} (the router has no kernel). */
public record ExpQueryDevResponse(DeviceLimits d) {
    static final Layout L = LayoutTable.struct("exp_query_dev_rsp");

    public ByteBuffer encode() {
        ByteBuffer b = Wire.allocate(L.size());
        b.putLong(L.off("node_guid"), d.nodeGuid()).putLong(L.off("sys_image_guid"), d.nodeGuid())
                .putLong(L.off("max_mr_size"), d.maxMrSize()).putLong(L.off("page_size_cap"), 4096)
                .putInt(L.off("vendor_id"), DeviceLimits.VENDOR_MELLANOX).putInt(L.off("vendor_part_id"), DeviceLimits.PART_CX3)
                .putInt(L.off("max_qp"), d.maxQp()).putInt(L.off("max_qp_wr"), d.maxQpWr())
                .putInt(L.off("max_sge"), d.maxSge()).putInt(L.off("max_sge_rd"), d.maxSge())
                .putInt(L.off("max_cq"), d.maxCq()).putInt(L.off("max_cqe"), d.maxCqe())
                .putInt(L.off("max_mr"), d.maxMr()).putInt(L.off("max_pd"), d.maxPd())
                .putInt(L.off("max_qp_rd_atom"), 16);
        b.put(L.off("phys_port_cnt"), (byte) 1);
        return b;
    }
}
