// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.rdmacm;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.freeflow.internal.wire.Func;
import io.rdmanode.freeflow.internal.wire.FuncSpec;
import io.rdmanode.freeflow.internal.wire.LayoutTable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden layouts: the genuine client's CM_* bodies (librdmacm-1.1.0mlnx {@code rdma_cma_abi.h} inside the
 * {@code CM_*_REQ} structs of {@code freeflow-types.h}, microsoft/Freeflow fa12953) become the kernel commands of
 * {@code rdma/rdma_user_cm.h} byte for byte. Every body carries a garbage header and garbage pointers where the
 * client's command has them: none of it may reach the kernel.
 */
class UcmaCommandTest {
    private static final HexFormat HEX = HexFormat.of();

    /** A client body of {@code size} bytes: ec.fd 7, garbage (0xee) in the command's header at {@code cmdAt}. */
    private static ByteBuffer body(int size, int cmdAt) {
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, 7);
        for (int i = 0; i < 8; i++) {
            b.put(cmdAt + i, (byte) 0xee);
        }
        return b;
    }

    static Stream<Arguments> small() {
        return Stream.of(
                // CM_CREATE_ID_REQ 40: cmd@8 {hdr, uid@+8, response@+16, ps u16@+24, qp_type u8@+26}
                Arguments.of(Func.CM_CREATE_ID, body(40, 8).putLong(16, 0x1122334455667788L)
                                .putLong(24, 0xdeadbeefL).putShort(32, (short) 0x0106).put(34, (byte) 2),
                        "00000000" + "1800" + "0400" + "8877665544332211" + "0000000000000000" + "0601" + "02"
                                + "0000000000"),
                // CM_DESTROY_ID_REQ 32: cmd@8 {hdr, response@+8, id@+16, reserved}
                Arguments.of(Func.CM_DESTROY_ID, body(32, 8).putLong(16, 0xdeadbeefL).putInt(24, 5).putInt(28, -1),
                        "01000000" + "1000" + "0400" + "0000000000000000" + "05000000" + "00000000"),
                // CM_LISTEN_REQ 20: cmd@4 {hdr, id@+8, backlog@+12}
                Arguments.of(Func.CM_LISTEN, body(20, 4).putInt(12, 5).putInt(16, 10),
                        "07000000" + "0800" + "0000" + "05000000" + "0a000000"),
                // CM_RESOLVE_ROUTE_REQ 20: cmd@4 {hdr, id@+8, timeout_ms@+12}
                Arguments.of(Func.CM_RESOLVE_ROUTE, body(20, 4).putInt(12, 5).putInt(16, 2000),
                        "04000000" + "0800" + "0000" + "05000000" + "d0070000"),
                // CM_DISCONNECT_REQ 16: cmd@4 {hdr, id@+8}
                Arguments.of(Func.CM_DISCONNECT, body(16, 4).putInt(12, 5),
                        "0a000000" + "0400" + "0000" + "05000000"),
                // CM_INIT_QP_ATTR_REQ 32: cmd@8 {hdr, response@+8, id@+16, qp_state@+20}
                Arguments.of(Func.CM_INIT_QP_ATTR, body(32, 8).putLong(16, 0xdeadbeefL).putInt(24, 5).putInt(28, 3),
                        "0b000000" + "1000" + "9000" + "0000000000000000" + "05000000" + "03000000"),
                // CM_QUERY_ROUTE_REQ 32: cmd@8 ucma_abi_query {hdr, response@+8, id@+16, option@+20}
                Arguments.of(Func.CM_QUERY_ROUTE, body(32, 8).putLong(16, 0xdeadbeefL).putInt(24, 5).putInt(28, 9),
                        "05000000" + "1000" + "c800" + "0000000000000000" + "05000000" + "00000000"),
                // CM_UCMA_QUERY_GID_REQ: UCMA_CMD_QUERY with the option the function means (GID = 2)
                Arguments.of(Func.CM_UCMA_QUERY_GID, body(32, 8).putInt(24, 5).putInt(28, 0),
                        "13000000" + "1000" + "1001" + "0000000000000000" + "05000000" + "02000000"),
                // CM_GET_EVENT_REQ 24: cmd@8 {hdr, response@+8}; out = sizeof(ucma_abi_event_resp) = 328
                Arguments.of(Func.CM_GET_EVENT, body(24, 8).putLong(16, 0xdeadbeefL),
                        "0c000000" + "0800" + "4801" + "0000000000000000"));
    }

    @ParameterizedTest
    @MethodSource("small")
    void a_client_body_becomes_the_kernel_command_byte_for_byte(int func, ByteBuffer body, String kernel) {
        FuncSpec spec = LayoutTable.standard().func(func);
        assertThat(body.capacity()).as("body size of " + spec.name()).isEqualTo(spec.requestSize());
        assertThat(HEX.formatHex(UcmaCommand.of(func).kernelCommand(body).array())).isEqualTo(kernel);
    }

    @Test
    void bind_ip_and_resolve_ip_carry_sockaddr_in6_fields_at_the_kernel_offsets() {
        // CM_BIND_IP_REQ 56: cmd@8 {hdr, response@+8, sockaddr_in6 addr@+16 (28), id@+44}
        ByteBuffer bind = body(56, 8).putShort(24, (short) 2).putShort(26, (short) 0x5c11).put(28, new byte[] {10, 44, 0, 1})
                .putInt(52, 5);
        ByteBuffer k = UcmaCommand.of(Func.CM_BIND_IP).kernelCommand(bind);
        assertThat(k.capacity()).isEqualTo(48);
        assertThat(HEX.formatHex(k.array(), 0, 8)).isEqualTo("02000000" + "2800" + "0000");
        assertThat(HEX.formatHex(k.array(), 16, 24)).isEqualTo("0200115c0a2c0001");
        assertThat(k.getInt(44)).isEqualTo(5);
        // CM_RESOLVE_IP_REQ 76: cmd@4 {hdr, src@+8, dst@+36, id@+64, timeout_ms@+68}
        ByteBuffer res = body(76, 4).putShort(12, (short) 2).putShort(40, (short) 2).put(44, new byte[] {10, 44, 0, 2})
                .putInt(68, 5).putInt(72, 2000);
        k = UcmaCommand.of(Func.CM_RESOLVE_IP).kernelCommand(res);
        assertThat(HEX.formatHex(k.array(), 0, 8)).isEqualTo("03000000" + "4000" + "0000");
        assertThat(HEX.formatHex(k.array(), 36, 44)).isEqualTo("020000000a2c0002");
        assertThat(k.getInt(64)).isEqualTo(5);
        assertThat(k.getInt(68)).isEqualTo(2000);
    }

    @Test
    void bind_and_resolve_addr_carry_sockaddr_storage_and_sizes() {
        // CM_BIND_REQ 152: cmd@8 {hdr, id@+8, addr_size u16@+12, reserved, sockaddr_storage@+16}
        ByteBuffer bind = body(152, 8).putInt(16, 5).putShort(20, (short) 16).putShort(24, (short) 2)
                .put(28, new byte[] {10, 44, 0, 1});
        ByteBuffer k = UcmaCommand.of(Func.CM_BIND).kernelCommand(bind);
        assertThat(k.capacity()).isEqualTo(144);
        assertThat(HEX.formatHex(k.array(), 0, 20)).isEqualTo("14000000" + "8800" + "0000" + "05000000" + "1000" + "0000"
                + "02000000");
        assertThat(HEX.formatHex(k.array(), 20, 24)).isEqualTo("0a2c0001");
        // CM_RESOLVE_ADDR_REQ 288: cmd@8 {hdr, id@+8, timeout@+12, src_size@+16, dst_size@+18, src@+24, dst@+152}
        ByteBuffer res = body(288, 8).putInt(16, 5).putInt(20, 2000).putShort(24, (short) 16).putShort(26, (short) 16)
                .putShort(160, (short) 2).put(164, new byte[] {10, 44, 0, 2});
        k = UcmaCommand.of(Func.CM_RESOLVE_ADDR).kernelCommand(res);
        assertThat(k.capacity()).isEqualTo(280);
        assertThat(HEX.formatHex(k.array(), 0, 20)).isEqualTo("15000000" + "1001" + "0000" + "05000000" + "d0070000"
                + "1000" + "1000");
        assertThat(HEX.formatHex(k.array(), 152, 160)).isEqualTo("020000000a2c0002");
    }

    @Test
    void connect_and_accept_carry_the_conn_param_with_the_qp_number() {
        // CM_CONNECT_REQ 292: cmd@4 {hdr, ucma_abi_conn_param@+8 (272: qp_num@0, private_data[256]@8, len@264,
        // srq, responder_resources, initiator_depth, flow_control, retry_count, rnr_retry_count, valid), id@+280}
        ByteBuffer c = body(292, 4).putInt(12, 0x11).put(20, (byte) 0xab).put(276, (byte) 56).put(278, (byte) 1)
                .put(279, (byte) 1).put(281, (byte) 7).put(282, (byte) 7).put(283, (byte) 1).putInt(284, 5);
        ByteBuffer k = UcmaCommand.of(Func.CM_CONNECT).kernelCommand(c);
        assertThat(k.capacity()).isEqualTo(288);
        assertThat(HEX.formatHex(k.array(), 0, 12)).isEqualTo("06000000" + "1801" + "0000" + "11000000");
        assertThat(k.get(16)).isEqualTo((byte) 0xab);
        assertThat(HEX.formatHex(k.array(), 272, 280)).isEqualTo("3800010100070701");
        assertThat(k.getInt(280)).isEqualTo(5);
        // CM_ACCEPT_REQ 304: cmd@8 {hdr, uid@+8, conn_param@+16, id@+288}
        ByteBuffer a = body(304, 8).putLong(16, 0x42).putInt(24, 0x12).putInt(296, 6);
        k = UcmaCommand.of(Func.CM_ACCEPT).kernelCommand(a);
        assertThat(HEX.formatHex(k.array(), 0, 20)).isEqualTo("08000000" + "2001" + "0000" + "4200000000000000"
                + "12000000");
        assertThat(k.getInt(288)).isEqualTo(6);
        // CM_UCMA_PROCESS_CONN_RESP: an ACCEPT of the id alone (the genuine router's ucma_process_conn_resp_resp)
        k = UcmaCommand.of(Func.CM_UCMA_PROCESS_CONN_RESP).kernelCommand(a);
        assertThat(k.getLong(8)).isZero();
        assertThat(k.getInt(16)).isZero();
        assertThat(k.getInt(288)).isEqualTo(6);
    }

    @Test
    void answers_put_the_kernel_response_where_the_genuine_client_reads_it() {
        LayoutTable t = LayoutTable.standard();
        // {ret_errno, then the kernel struct: at 4 when it has no u64, at 8 when it has}
        assertThat(t.func(Func.CM_CREATE_ID).response().size()).isEqualTo(8);
        assertThat(UcmaCommand.of(Func.CM_CREATE_ID).answerAt()).isEqualTo(4);
        assertThat(UcmaCommand.of(Func.CM_INIT_QP_ATTR).answerAt() + UcmaCommand.of(Func.CM_INIT_QP_ATTR).out())
                .isEqualTo(t.func(Func.CM_INIT_QP_ATTR).response().size());
        assertThat(UcmaCommand.of(Func.CM_QUERY_ROUTE).answerAt() + UcmaCommand.of(Func.CM_QUERY_ROUTE).out())
                .isEqualTo(t.func(Func.CM_QUERY_ROUTE).response().size());
        assertThat(UcmaCommand.of(Func.CM_UCMA_QUERY_ADDR).answerAt() + UcmaCommand.of(Func.CM_UCMA_QUERY_ADDR).out())
                .isEqualTo(t.func(Func.CM_UCMA_QUERY_ADDR).response().size());
        assertThat(UcmaCommand.of(Func.CM_UCMA_QUERY_PATH).answerAt() + UcmaCommand.of(Func.CM_UCMA_QUERY_PATH).out())
                .isEqualTo(t.func(Func.CM_UCMA_QUERY_PATH).response().size());
        assertThat(UcmaCommand.of(Func.CM_GET_EVENT).answerAt() + UcmaCommand.EVENT_SIZE)
                .isEqualTo(t.func(Func.CM_GET_EVENT).response().size());
    }
}
