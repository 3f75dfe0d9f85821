// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The codec against bytes laid out by the C compiler (fixtures/wire, see PROVENANCE.md there). */
class GoldenBytesTest {

    static ByteBuffer fixture(String name) throws IOException {
        try (InputStream in = GoldenBytesTest.class.getResourceAsStream("/fixtures/wire/" + name + ".hex")) {
            byte[] b = HexFormat.of().parseHex(new String(in.readAllBytes(), StandardCharsets.US_ASCII).strip());
            return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.capacity()];
        b.get(0, out);
        return out;
    }

    @Test
    void requests_decode_to_the_values_the_c_client_wrote() throws Exception {
        assertThat(CreateCqRequest.decode(fixture("create_cq_req"))).isEqualTo(new CreateCqRequest(-1, 3, 256));
        assertThat(CreateQpRequest.decode(fixture("create_qp_req")))
                .isEqualTo(new CreateQpRequest(1, 2, true, 3, 4, 0, 128, 64, 2, 3, 0));
        ModifyQpRequest m = ModifyQpRequest.decode(fixture("modify_qp_req"));
        assertThat(m.handle()).isEqualTo(9);
        assertThat(m.qpState()).isEqualTo(2);
        assertThat(m.pathMtu()).isEqualTo(5);
        assertThat(m.destQpNum()).isEqualTo(0xabcdef);
        assertThat(m.rqPsn()).isEqualTo(77);
        assertThat(m.dlid()).isEqualTo(0x1234);
        assertThat(m.dgid()[15]).isEqualTo((byte) 0xfe);
        assertThat(m.minRnrTimer()).isEqualTo(12);
        assertThat(m.maxDestRdAtomic()).isEqualTo(4);
        assertThat(m.portNum()).isEqualTo(1);
        assertThat(m.rnrRetry()).isEqualTo(7);
        assertThat(m.timeout()).isEqualTo(14);
        assertThat(m.retryCnt()).isEqualTo(6);
        assertThat(m.attrMask()).isEqualTo(1 | 128 | 256 | 1048576 | 4096 | 131072 | 32768);
        assertThat(RegMrRequest.decode(fixture("reg_mr_req"))).isEqualTo(new RegMrRequest(1, 65536, 7, ""));
        assertThat(RegMrMappingRequest.decode(fixture("reg_mr_mapping_req")))
                .isEqualTo(new RegMrMappingRequest(0xdeadbeef, 0x7f0000100000L, 0x7f0000200000L));
        assertThat(PollCqRequest.decode(fixture("poll_cq_req"))).isEqualTo(new PollCqRequest(3, 16));
    }

    @Test
    void post_bodies_decode_wrs_with_their_sges_in_order() throws Exception {
        ByteBuffer b = fixture("post_send_body");
        PostRequest p = PostRequest.decodeSend(b, b.capacity());
        assertThat(p.handle()).isEqualTo(9);
        assertThat(p.sends()).hasSize(2);
        SendWr first = p.sends().get(0);
        assertThat(first.wrId()).isEqualTo(0x1111);
        assertThat(first.opcode()).isEqualTo(SendWr.OP_SEND_WITH_IMM);
        assertThat(first.signaled()).isTrue();
        assertThat(first.immData()).isEqualTo(0x99);
        assertThat(first.sges()).containsExactly(new Sge(0, 100, 0xdeadbeef), new Sge(4096, 200, 0xdeadbeef));
        SendWr second = p.sends().get(1);
        assertThat(second.remoteAddr()).isEqualTo(0x7f0000100010L);
        assertThat(second.rkey()).isEqualTo(0xdeadbeef);
        assertThat(second.sges()).containsExactly(new Sge(8192, 300, 0xdeadbeef));

        ByteBuffer r = fixture("post_recv_body");
        PostRequest pr = PostRequest.decodeRecv(r, r.capacity());
        assertThat(pr.recvs()).hasSize(1);
        assertThat(pr.recvs().get(0).wrId()).isEqualTo(0x3333);
        assertThat(pr.recvs().get(0).sges()).containsExactly(new Sge(64, 4096, 0xdeadbeef));
    }

    @Test
    void responses_encode_to_the_c_client_bytes() throws Exception {
        assertThat(bytes(new CreateCqResponse(256, 3, "ff-t-cq").encode())).isEqualTo(bytes(fixture("create_cq_rsp")));
        assertThat(bytes(new CreateQpResponse(0x123456, 9, 128, 64, 2, 3, "ff-t-qp").encode()))
                .isEqualTo(bytes(fixture("create_qp_rsp")));
        assertThat(bytes(new ModifyQpResponse(22, 9).encode())).isEqualTo(bytes(fixture("modify_qp_rsp")));
        assertThat(bytes(new RegMrResponse(2, 0xdeadbeef, 0xdeadbeef, "ff-t-mr").encode()))
                .isEqualTo(bytes(fixture("reg_mr_rsp")));
        assertThat(bytes(new PostResponse(12, 2).encode())).isEqualTo(bytes(fixture("post_rsp")));
        ByteBuffer wc = Wire.allocate(WorkCompletion.SIZE);
        new WorkCompletion(0x3333, 0, 128, 4096, 0x99, 0x123456, 0xabcdef, 2).encode(wc, 0);
        assertThat(bytes(wc)).isEqualTo(bytes(fixture("wc")));
    }

    @Test
    void a_post_body_whose_counts_disagree_with_its_size_is_refused() throws Exception {
        ByteBuffer b = fixture("post_send_body");
        assertThatThrownBy(() -> PostRequest.decodeSend(b, b.capacity() - 16)).isInstanceOf(WireException.class)
                .hasMessageContaining("expected");
        b.putInt(24, 2);
        assertThatThrownBy(() -> PostRequest.decodeSend(b, b.capacity())).isInstanceOf(WireException.class);
        ByteBuffer c = fixture("post_send_body");
        c.putInt(32 + 24, 7);
        assertThatThrownBy(() -> PostRequest.decodeSend(c, c.capacity())).isInstanceOf(WireException.class)
                .hasMessageContaining("claims 7 SGEs");
    }

    @ParameterizedTest
    @CsvSource({"0", "10240", "-1", "2147483647"})
    void handles_outside_1_to_10239_are_refused(int handle) {
        ByteBuffer b = Wire.allocate(4).putInt(0, handle);
        assertThatThrownBy(() -> HandleRequest.decode(b, "QP")).isInstanceOf(WireException.class)
                .hasMessageContaining("out of range");
    }

    @Test
    void every_function_has_sizes_and_unknown_ids_have_none() {
        LayoutTable t = LayoutTable.standard();
        assertThat(t.func(99)).isNull();
        assertThat(t.func(0)).isNull();
        assertThat(t.func(Func.CREATE_QP).requestSize()).isEqualTo(44);
        assertThat(t.func(Func.CREATE_QP).response().size()).isEqualTo(128);
        assertThat(t.func(Func.MODIFY_QP).requestSize()).isEqualTo(152);
        assertThat(t.func(Func.POST_SEND).requestSize()).isEqualTo(-1);
        assertThat(t.func(Func.GET_CONTEXT).requestSize()).isZero();
        assertThat(LayoutTable.struct("mailbox").size()).isEqualTo(2_097_156);
        ByteBuffer err = ErrorResponse.of(t.func(Func.CREATE_QP), Errno.EINVAL);
        assertThat(err.capacity()).isEqualTo(128);
        assertThat(err.getInt(4)).as("handle 0 = refused").isZero();
        assertThat(ErrorResponse.of(t.func(Func.MODIFY_QP), Errno.EINVAL).getInt(0)).isEqualTo(22);
        assertThat(ErrorResponse.of(t.func(Func.SOCKET_SOCKET), Errno.EOPNOTSUPP).getInt(0)).isEqualTo(-95);
    }
}
