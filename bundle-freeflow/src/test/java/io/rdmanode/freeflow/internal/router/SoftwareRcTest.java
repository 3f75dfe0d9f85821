// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.freeflow.internal.wire.Layout;
import io.rdmanode.freeflow.internal.wire.LayoutTable;
import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import io.rdmanode.freeflow.testclient.FfClient.Mr;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import io.rdmanode.freeflow.testclient.FfClient.Sg;
import io.rdmanode.freeflow.testclient.FfClient.Wc;
import io.rdmanode.freeflow.testclient.FfClient.Wr;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The clean-room Java client against a real router over its Unix socket and shm mailboxes: RC data transfers. */
class SoftwareRcTest {
    static final int ACCESS_ALL = 1 | 2 | 4;
    RouterFixture fx;
    FfClient c;
    int pd;
    Cq cqA;
    Cq cqB;
    Qp a;
    Qp b;
    Mr mrA;
    Mr mrB;

    @BeforeEach
    void given_two_connected_qps() throws Exception {
        fx = new RouterFixture();
        c = fx.client();
        pd = c.allocPd();
        cqA = c.createCq(64);
        cqB = c.createCq(64);
        a = c.createQp(pd, cqA, cqA, 32, 4);
        b = c.createQp(pd, cqB, cqB, 32, 4);
        mrA = c.regMr(pd, 1 << 20, ACCESS_ALL);
        mrB = c.regMr(pd, 1 << 20, ACCESS_ALL);
    }

    @AfterEach
    void close() throws Exception {
        fx.close();
    }

    void connect(int rnrRetry) throws Exception {
        c.connect(a, b.qpn(), ACCESS_ALL, 1, rnrRetry);
        c.connect(b, a.qpn(), ACCESS_ALL, 1, rnrRetry);
    }

    @Test
    void query_qp_answers_the_attributes_modify_set() throws Exception {
        connect(7);

        Layout rs = LayoutTable.struct("query_qp_rsp");
        ByteBuffer q = c.queryQp(a);
        assertThat(q.getInt(rs.off("ret_errno"))).isZero();
        assertThat(q.get(rs.off("qp_state"))).isEqualTo((byte) 3);
        assertThat(q.get(rs.off("path_mtu"))).isEqualTo((byte) 5);
        assertThat(q.getInt(rs.off("dest_qp_num"))).isEqualTo(b.qpn());
        assertThat(q.getInt(rs.off("qp_access_flags"))).isEqualTo(ACCESS_ALL);
        assertThat(q.get(rs.off("min_rnr_timer"))).isEqualTo((byte) 1);
        assertThat(q.get(rs.off("rnr_retry"))).isEqualTo((byte) 7);
    }

    @Test
    void send_lands_in_the_posted_receive_buffer_with_completions_on_both_sides() throws Exception {
        connect(7);
        for (int i = 0; i < 4096; i++) {
            mrA.buf().put(i, (byte) (i * 7));
        }
        assertThat(c.postRecv(b, 11, new Sg(8192, 8192, mrB.lkey()))).containsExactly(0, 0);
        assertThat(c.postSend(a, List.of(new Wr(21, 3, 2, 0x1234, 0, 0, new Sg(0, 4096, mrA.lkey()))))).containsExactly(0, 0);

        List<Wc> sent = c.await(cqA, 1);
        List<Wc> got = c.await(cqB, 1);
        assertThat(sent).containsExactly(new Wc(21, 0, 0, 4096, 0, a.qpn(), 0, 0));
        assertThat(got).containsExactly(new Wc(11, 0, 128, 4096, 0x1234, b.qpn(), a.qpn(), 2));
        for (int i = 0; i < 4096; i++) {
            assertThat(mrB.buf().get(8192 + i)).isEqualTo((byte) (i * 7));
        }
    }

    @Test
    void write_with_imm_and_read_use_addresses_relative_to_the_registered_app_buffer() throws Exception {
        connect(7);
        long appB = 0x7f0000100000L;
        assertThat(c.regMrMapping(mrB.lkey(), appB)).isZero();
        mrA.buf().put(0, "hello freeflow".getBytes());
        c.postRecv(b, 1);
        c.postSend(a, List.of(new Wr(5, 1, 2, 99, appB + 100, mrB.rkey(), new Sg(0, 14, mrA.lkey()))));
        assertThat(c.await(cqA, 1)).extracting(Wc::status, Wc::opcode).containsExactly(org.assertj.core.groups.Tuple.tuple(0, 1));
        assertThat(c.await(cqB, 1)).containsExactly(new Wc(1, 0, 129, 14, 99, b.qpn(), a.qpn(), 2));
        byte[] seen = new byte[14];
        mrB.buf().get(100, seen);
        assertThat(new String(seen)).isEqualTo("hello freeflow");

        c.postSend(a, List.of(new Wr(6, 4, 2, 0, appB + 100, mrB.rkey(), new Sg(5000, 14, mrA.lkey()))));
        assertThat(c.await(cqA, 1)).containsExactly(new Wc(6, 0, 2, 14, 0, a.qpn(), 0, 0));
        mrA.buf().get(5000, seen);
        assertThat(new String(seen)).isEqualTo("hello freeflow");
    }

    @Test
    void completions_come_in_post_order_and_unsignaled_sends_complete_silently() throws Exception {
        connect(7);
        for (int i = 0; i < 8; i++) {
            c.postRecv(b, 100 + i, new Sg(i * 64L, 64, mrB.lkey()));
        }
        c.postSend(a, List.of(new Wr(1, 2, 0, 0, 0, 0, new Sg(0, 64, mrA.lkey())),
                Wr.send(2, new Sg(64, 64, mrA.lkey())), Wr.send(3, new Sg(128, 64, mrA.lkey()))));
        assertThat(c.await(cqA, 2)).extracting(Wc::wrId).containsExactly(2L, 3L);
        assertThat(c.await(cqB, 3)).extracting(Wc::wrId).containsExactly(100L, 101L, 102L);
    }

    @Test
    void send_without_receive_is_retried_until_one_is_posted_when_rnr_retry_is_infinite() throws Exception {
        connect(7);
        c.postSend(a, List.of(Wr.send(9, new Sg(0, 16, mrA.lkey()))));
        assertThat(c.pollCq(cqA, 1)).isEmpty();
        c.postRecv(b, 10, new Sg(0, 16, mrB.lkey()));
        assertThat(c.await(cqA, 1)).extracting(Wc::status).containsExactly(0);
        assertThat(fx.router.stats().rnrNaks()).isPositive();
    }

    @Test
    void rnr_retries_exhausted_fail_the_send_and_flush_the_rest() throws Exception {
        connect(1);
        c.postSend(a, List.of(Wr.send(1, new Sg(0, 16, mrA.lkey())), Wr.send(2, new Sg(0, 16, mrA.lkey()))));
        List<Wc> wcs = c.await(cqA, 2);
        assertThat(wcs).extracting(Wc::wrId, Wc::status).containsExactly(
                org.assertj.core.groups.Tuple.tuple(1L, 13), org.assertj.core.groups.Tuple.tuple(2L, 5));
    }

    @Test
    void moving_a_qp_to_error_flushes_posted_receives() throws Exception {
        connect(7);
        c.postRecv(b, 1, new Sg(0, 16, mrB.lkey()));
        c.postRecv(b, 2, new Sg(0, 16, mrB.lkey()));
        assertThat(c.modifyQp(b, 6, 1, 0, 0, 0, 0)).isZero();
        assertThat(c.await(cqB, 2)).extracting(Wc::wrId, Wc::status).containsExactly(
                org.assertj.core.groups.Tuple.tuple(1L, 5), org.assertj.core.groups.Tuple.tuple(2L, 5));
    }

    @Test
    void write_with_a_forged_rkey_or_out_of_bounds_is_a_remote_access_error() throws Exception {
        connect(7);
        c.postSend(a, List.of(new Wr(1, 0, 2, 0, 0, mrB.rkey() ^ 0x5a5a, new Sg(0, 16, mrA.lkey()))));
        assertThat(c.await(cqA, 1)).extracting(Wc::status).containsExactly(10);
    }

    @Test
    void send_with_a_forged_lkey_is_a_local_protection_error() throws Exception {
        connect(7);
        c.postRecv(b, 1, new Sg(0, 16, mrB.lkey()));
        c.postSend(a, List.of(Wr.send(1, new Sg(0, 16, mrA.lkey() + 1))));
        assertThat(c.await(cqA, 1)).extracting(Wc::status).containsExactly(4);
    }

    @Test
    void a_chain_of_work_requests_in_one_post_executes_in_order_with_one_round_trip() throws Exception {
        connect(7);
        long before = fx.router.stats().fastRequests();
        List<Wr> chain = new java.util.ArrayList<>();
        for (int i = 0; i < 16; i++) {
            mrA.buf().put(i * 64, (byte) (i + 1));
            chain.add(new Wr(i, 0, i == 15 ? 2 : 0, 0, 4096 + i * 64L, mrB.rkey(), new Sg(i * 64L, 64, mrA.lkey())));
        }
        assertThat(c.postSend(a, chain)).containsExactly(0, 0);
        assertThat(fx.router.stats().fastRequests() - before).isEqualTo(1);
        assertThat(c.await(cqA, 1)).extracting(Wc::wrId, Wc::status).containsExactly(org.assertj.core.groups.Tuple.tuple(15L, 0));
        for (int i = 0; i < 16; i++) {
            assertThat(mrB.buf().get(4096 + i * 64)).isEqualTo((byte) (i + 1));
        }
    }

    // The engine remembers the last peer QP and MRs a QP used; these check that nothing stale is ever used.

    @Test
    void a_write_to_a_deregistered_mr_fails_even_right_after_one_that_succeeded() throws Exception {
        connect(7);
        c.postSend(a, List.of(new Wr(1, 0, 2, 0, 0, mrB.rkey(), new Sg(0, 16, mrA.lkey()))));
        assertThat(c.await(cqA, 1)).extracting(Wc::status).containsExactly(0);
        assertThat(c.ret(FfClient.DEREG_MR, mrB.handle())).isZero();
        c.postSend(a, List.of(new Wr(2, 0, 2, 0, 0, mrB.rkey(), new Sg(0, 16, mrA.lkey()))));
        assertThat(c.await(cqA, 1)).extracting(Wc::status).containsExactly(10);
    }

    @Test
    void a_send_from_a_deregistered_mr_fails_even_right_after_one_that_succeeded() throws Exception {
        connect(7);
        c.postRecv(b, 1, new Sg(0, 16, mrB.lkey()));
        c.postRecv(b, 2, new Sg(0, 16, mrB.lkey()));
        c.postSend(a, List.of(Wr.send(1, new Sg(0, 16, mrA.lkey()))));
        assertThat(c.await(cqA, 1)).extracting(Wc::status).containsExactly(0);
        assertThat(c.ret(FfClient.DEREG_MR, mrA.handle())).isZero();
        c.postSend(a, List.of(Wr.send(2, new Sg(0, 16, mrA.lkey()))));
        assertThat(c.await(cqA, 1)).extracting(Wc::status).containsExactly(4);
    }

    @Test
    void a_write_after_the_peer_qp_is_destroyed_gets_retry_exceeded() throws Exception {
        connect(7);
        c.postSend(a, List.of(new Wr(1, 0, 2, 0, 0, mrB.rkey(), new Sg(0, 16, mrA.lkey()))));
        assertThat(c.await(cqA, 1)).extracting(Wc::status).containsExactly(0);
        assertThat(c.ret(FfClient.DESTROY_QP, b.handle())).isZero();
        c.postSend(a, List.of(new Wr(2, 0, 2, 0, 0, mrB.rkey(), new Sg(0, 16, mrA.lkey()))));
        assertThat(c.await(cqA, 1)).extracting(Wc::status).containsExactly(12);
    }

    @Test
    void post_send_before_rts_is_refused_at_once() throws Exception {
        assertThat(c.postSend(a, List.of(Wr.send(1, new Sg(0, 16, mrA.lkey()))))).containsExactly(22, 1);
    }

    @Test
    void a_qp_without_its_counterpart_gets_retry_exceeded() throws Exception {
        c.connect(a, 0xabcde, ACCESS_ALL, 1, 7);
        c.postSend(a, List.of(Wr.send(1, new Sg(0, 16, mrA.lkey()))));
        assertThat(c.await(cqA, 1)).extracting(Wc::status).containsExactly(12);
    }
}
