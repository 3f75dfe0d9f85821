// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * QUERY_DEV and EXP_QUERY_DEV against offsets printed by offsetof() on the genuine client's headers
 * (libibverbs-1.2.1mlnx1 kern-abi_exp.h / verbs.h, gcc 12, x86_64; scripts/ffl-compat builds them), written here as
 * numbers so that layouts.txt is checked, not repeated. The genuine ibv_query_device goes through EXP_QUERY_DEV.
 */
class DeviceAttrTest {
    static final DeviceLimits D = new DeviceLimits("fw", 0x0002c90300000001L, 1L << 31, 1024, 16384, 32, 1024, 65536,
            4096, 256, 0, 16384, 32, 16);

    static String hex(ByteBuffer b, int off, int len) {
        byte[] out = new byte[len];
        b.get(off, out);
        return HexFormat.of().formatHex(out);
    }

    @Test
    void node_guid_travels_in_network_byte_order_as_in_the_sysfs_view() {
        // sysfs node_guid 0002:c903:0000:0001; ibv_devinfo prints be64toh() of the struct field.
        assertThat(hex(new DeviceAttrResponse(D).encode(), 64, 8)).isEqualTo("0002c90300000001");
        assertThat(hex(new ExpQueryDevResponse(D).encode(), 8 + 16, 8)).isEqualTo("0002c90300000001");
    }

    @Test
    void exp_query_dev_advertises_the_same_device_as_query_dev() {
        ByteBuffer q = new DeviceAttrResponse(D).encode();
        ByteBuffer e = new ExpQueryDevResponse(D).encode();
        assertThat(e.capacity()).isEqualTo(424);
        // ibv_exp_query_device_resp at +8: max_qp_init_rd_atom@108, max_srq@164, max_srq_wr@168, max_srq_sge@172,
        // max_pkeys@176 (u16), phys_port_cnt@179.
        assertThat(e.getInt(8 + 108)).isEqualTo(q.getInt(156)).isEqualTo(16);
        assertThat(e.getInt(8 + 164)).isEqualTo(q.getInt(212));
        assertThat(e.getInt(8 + 168)).isEqualTo(q.getInt(216)).isEqualTo(16384);
        assertThat(e.getInt(8 + 172)).isEqualTo(q.getInt(220)).isEqualTo(32);
        assertThat(e.getShort(8 + 176)).isEqualTo(q.getShort(224)).isEqualTo((short) 1);
        assertThat(e.get(8 + 179)).isEqualTo(q.get(227)).isEqualTo((byte) 1);
    }
}
