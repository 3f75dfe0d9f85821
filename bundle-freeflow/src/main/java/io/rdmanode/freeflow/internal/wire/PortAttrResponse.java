// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/**
 * QUERY_PORT: a raw {@code struct ibv_port_attr} (48 bytes): an Ethernet (RoCE) port; the software transport's is
 * active with a 4096 MTU, the verbs transport's carries its device's state, MTUs, GID table length and LID.
 */
public record PortAttrResponse(int state, int lid, int gidTblLen, int maxMtu, int activeMtu) {
    static final Layout L = LayoutTable.struct("port_attr");
    public static final int PORT_ACTIVE = 4;
    public static final int PORT_DOWN = 1;

    public PortAttrResponse(int state, int lid, int gidTblLen) {
        this(state, lid, gidTblLen, 5, 5);
    }

    public ByteBuffer encode() {
        ByteBuffer b = Wire.allocate(L.size());
        b.putInt(L.off("state"), state).putInt(L.off("max_mtu"), maxMtu).putInt(L.off("active_mtu"), activeMtu)
                .putInt(L.off("gid_tbl_len"), gidTblLen).putInt(L.off("max_msg_sz"), 1 << 30)
                .putShort(L.off("pkey_tbl_len"), (short) 1).putShort(L.off("lid"), (short) lid);
        b.put(L.off("max_vl_num"), (byte) 1).put(L.off("active_width"), (byte) 2).put(L.off("active_speed"), (byte) 4)
                .put(L.off("phys_state"), (byte) (state == PORT_ACTIVE ? 5 : 3)).put(L.off("link_layer"), (byte) 2);
        return b;
    }
}
