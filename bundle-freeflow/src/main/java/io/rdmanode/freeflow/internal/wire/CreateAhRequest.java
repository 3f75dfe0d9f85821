// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/**
 * CREATE_AH: PD and the {@code struct ibv_ah_attr} at +8 (a UD destination: the peer's GID when global, its LID,
 * service level, port). The client's sgid_index names a GID of its own sysfs view: a device transport uses its own.
 */
public record CreateAhRequest(int pdHandle, byte[] dgid, int dlid, int sl, boolean global, int portNum) {
    static final Layout L = LayoutTable.struct("create_ah_req");

    public static CreateAhRequest decode(ByteBuffer b) {
        byte[] dgid = new byte[16];
        b.get(L.off("dgid"), dgid);
        return new CreateAhRequest(Wire.handle(b, L.off("pd_handle"), "PD"), dgid, Wire.u16(b, L.off("dlid")),
                Wire.u8(b, L.off("sl")), Wire.u8(b, L.off("is_global")) != 0, Wire.u8(b, L.off("port_num")));
    }
}
