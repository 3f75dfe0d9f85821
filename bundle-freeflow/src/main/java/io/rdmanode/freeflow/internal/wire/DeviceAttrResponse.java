// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** QUERY_DEV: a raw {@code struct ibv_device_attr} (232 bytes) synthesised from the router's limits. */
public record DeviceAttrResponse(DeviceLimits d) {
    static final Layout L = LayoutTable.struct("device_attr");

    public ByteBuffer encode() {
        ByteBuffer b = Wire.allocate(L.size());
        Wire.putCstring(b, L.off("fw_ver"), 64, d.fwVer());
        d.putAttributes(b, L);
        return b;
    }
}
