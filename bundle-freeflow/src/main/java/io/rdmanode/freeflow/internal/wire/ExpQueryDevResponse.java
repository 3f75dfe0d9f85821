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
        d.putAttributes(b, L);
        return b;
    }
}
