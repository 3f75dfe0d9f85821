// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The wire format against include/uapi/rdma/rdma_netlink.h and linux/netlink.h (values of the 6.1 header). */
class RdmaNlTest {

    @Test
    void kernelAbiConstants() {
        assertThat(RdmaNl.type(RdmaNl.CMD_GET)).isEqualTo(5121);
        assertThat(RdmaNl.type(RdmaNl.CMD_SET)).isEqualTo(5122);
        assertThat(RdmaNl.type(RdmaNl.CMD_SYS_GET)).isEqualTo(5126);
        assertThat(RdmaNl.type(RdmaNl.CMD_SYS_SET)).isEqualTo(5127);
        assertThat(RdmaNl.client(5122)).isEqualTo(5);
        assertThat(RdmaNl.op(5122)).isEqualTo(2);
        assertThat(RdmaNl.ATTR_DEV_INDEX).isEqualTo(1);
        assertThat(RdmaNl.ATTR_DEV_NAME).isEqualTo(2);
        assertThat(RdmaNl.ATTR_PORT_INDEX).isEqualTo(3);
        assertThat(RdmaNl.ATTR_NODE_GUID).isEqualTo(6);
        assertThat(RdmaNl.SYS_ATTR_NETNS_MODE).isEqualTo(66);
        assertThat(RdmaNl.ATTR_DEV_PROTOCOL).isEqualTo(67);
        assertThat(RdmaNl.NET_NS_FD).isEqualTo(68);
        assertThat(RdmaNl.NLM_F_DUMP).isEqualTo(0x300);
    }

    @Test
    void moveRequestIsHeaderPlusTwoU32Attributes() {
        byte[] m = new RdmaNl.Builder(RdmaNl.type(RdmaNl.CMD_SET), RdmaNl.NLM_F_REQUEST | RdmaNl.NLM_F_ACK, 7)
                .u32(RdmaNl.ATTR_DEV_INDEX, 3).u32(RdmaNl.NET_NS_FD, 42).build();
        ByteBuffer expected = ByteBuffer.allocate(32).order(ByteOrder.nativeOrder())
                .putInt(32).putShort((short) 5122).putShort((short) 5).putInt(7).putInt(0)
                .putShort((short) 8).putShort((short) 1).putInt(3)
                .putShort((short) 8).putShort((short) 68).putInt(42);
        assertThat(HexFormat.of().formatHex(m)).isEqualTo(HexFormat.of().formatHex(expected.array()));
    }

    @Test
    void u8AndStringAttributesArePaddedToFourBytes() {
        byte[] m = new RdmaNl.Builder(RdmaNl.type(RdmaNl.CMD_SYS_SET), 5, 1).u8(RdmaNl.SYS_ATTR_NETNS_MODE, 0)
                .string(RdmaNl.ATTR_DEV_NAME, "mlx5_0").build();
        ByteBuffer b = ByteBuffer.wrap(m).order(ByteOrder.nativeOrder());
        assertThat(m.length).isEqualTo(16 + 8 + 12);
        assertThat(b.getShort(16)).isEqualTo((short) 5); // nla_len counts the header and the u8, not the padding
        assertThat(b.getShort(18)).isEqualTo((short) 66);
        assertThat(b.getShort(24)).isEqualTo((short) 11); // "mlx5_0\0" = 7 bytes + 4
        assertThat(b.getShort(26)).isEqualTo((short) 2);
    }

    @Test
    void parsesReplyAttributesErrorsAndDone() {
        byte[] reply = new RdmaNl.Builder(5121, RdmaNl.NLM_F_MULTI, 9).u32(RdmaNl.ATTR_DEV_INDEX, 4)
                .string(RdmaNl.ATTR_DEV_NAME, "mlx5_7").u32(RdmaNl.ATTR_PORT_INDEX, 1)
                .u64(RdmaNl.ATTR_NODE_GUID, 0x0c42a1030065d81eL).u32(999, 1).string(RdmaNl.ATTR_DEV_PROTOCOL, "roce")
                .build();
        byte[] done = new RdmaNl.Builder(RdmaNl.NLMSG_DONE, RdmaNl.NLM_F_MULTI, 9).build();
        byte[] err = new RdmaNl.Builder(RdmaNl.NLMSG_ERROR, 0, 10).error(95, 5122, 10).build();
        byte[] all = new byte[reply.length + done.length + err.length];
        System.arraycopy(reply, 0, all, 0, reply.length);
        System.arraycopy(done, 0, all, reply.length, done.length);
        System.arraycopy(err, 0, all, reply.length + done.length, err.length);

        var msgs = RdmaNl.parse(all, all.length);

        assertThat(msgs).hasSize(3);
        assertThat(msgs.get(0).u32(RdmaNl.ATTR_DEV_INDEX, -1)).isEqualTo(4);
        assertThat(msgs.get(0).string(RdmaNl.ATTR_DEV_NAME, "")).isEqualTo("mlx5_7");
        assertThat(msgs.get(0).u64(RdmaNl.ATTR_NODE_GUID, 0)).isEqualTo(0x0c42a1030065d81eL);
        assertThat(msgs.get(0).string(RdmaNl.ATTR_DEV_PROTOCOL, "")).isEqualTo("roce");
        assertThat(msgs.get(1).isDone()).isTrue();
        assertThat(msgs.get(2).isError()).isTrue();
        assertThat(msgs.get(2).errno()).isEqualTo(95);
        assertThat(RdmaNl.parse(all, 20)).isEmpty(); // a truncated message is not half-read
    }
}
