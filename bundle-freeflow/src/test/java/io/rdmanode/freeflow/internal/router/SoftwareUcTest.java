// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import io.rdmanode.freeflow.testclient.FfClient.Mr;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import io.rdmanode.freeflow.testclient.FfClient.Sg;
import io.rdmanode.freeflow.testclient.FfClient.Wc;
import io.rdmanode.freeflow.testclient.FfClient.Wr;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * UC QPs (the genuine client's ibv_uc_pingpong): data moves like RC, nothing is acknowledged, so what RC reports
 * as RNR or remote errors is a silent drop with a successful send completion; RDMA READ does not exist.
 */
class SoftwareUcTest {
    static final int ACCESS_ALL = 1 | 2 | 4;
    RouterFixture fx;
    FfClient c;
    Cq cqA;
    Cq cqB;
    Qp a;
    Qp b;
    Mr mrA;
    Mr mrB;

    @BeforeEach
    void given_two_uc_qps_connected_with_uc_masks() throws Exception {
        fx = new RouterFixture();
        c = fx.client();
        int pd = c.allocPd();
        cqA = c.createCq(64);
        cqB = c.createCq(64);
        a = c.createQp(pd, cqA, cqA, 32, 4, 3);
        b = c.createQp(pd, cqB, cqB, 32, 4, 3);
        mrA = c.regMr(pd, 1 << 16, ACCESS_ALL);
        mrB = c.regMr(pd, 1 << 16, ACCESS_ALL);
        c.connectUc(a, b.qpn(), ACCESS_ALL);
        c.connectUc(b, a.qpn(), ACCESS_ALL);
    }

    @AfterEach
    void close() throws Exception {
        fx.close();
    }

    @Test
    void send_lands_in_the_posted_receive_like_rc() throws Exception {
        mrA.buf().put(0, "uc hello".getBytes());
        c.postRecv(b, 11, new Sg(100, 64, mrB.lkey()));
        c.postSend(a, List.of(Wr.send(21, new Sg(0, 8, mrA.lkey()))));
        assertThat(c.await(cqA, 1)).containsExactly(new Wc(21, 0, 0, 8, 0, a.qpn(), 0, 0));
        assertThat(c.await(cqB, 1)).containsExactly(new Wc(11, 0, 128, 8, 0, b.qpn(), a.qpn(), 0));
        byte[] got = new byte[8];
        mrB.buf().get(100, got);
        assertThat(new String(got)).isEqualTo("uc hello");
    }

    @Test
    void a_send_without_a_receive_is_dropped_and_the_sender_never_hears_of_it() throws Exception {
        c.postSend(a, List.of(Wr.send(1, new Sg(0, 8, mrA.lkey()))));
        assertThat(c.await(cqA, 1)).extracting(Wc::wrId, Wc::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, 0));
        c.postRecv(b, 2, new Sg(0, 8, mrB.lkey()));
        assertThat(c.pollCq(cqB, 4)).as("the dropped message is not delivered later").isEmpty();
        assertThat(fx.router.stats().ucDropped()).isEqualTo(1);
        assertThat(fx.router.stats().rnrNaks()).isZero();
    }

    @Test
    void a_write_with_a_bad_rkey_is_dropped_silently_and_the_qp_stays_usable() throws Exception {
        c.postSend(a, List.of(new Wr(1, 0, 2, 0, 0, mrB.rkey() ^ 0x5a5a, new Sg(0, 16, mrA.lkey()))));
        assertThat(c.await(cqA, 1)).extracting(Wc::status).containsExactly(0);
        c.postRecv(b, 3, new Sg(0, 8, mrB.lkey()));
        c.postSend(a, List.of(Wr.send(4, new Sg(0, 8, mrA.lkey()))));
        assertThat(c.await(cqB, 1)).extracting(Wc::wrId, Wc::status)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(3L, 0));
    }

    @Test
    void rdma_read_is_refused_at_post_time() throws Exception {
        assertThat(c.postSend(a, List.of(new Wr(1, 4, 2, 0, 0, mrB.rkey(), new Sg(0, 16, mrA.lkey())))))
                .containsExactly(22, 1);
    }

    @Test
    void a_local_protection_error_still_fails_the_send() throws Exception {
        c.postSend(a, List.of(Wr.send(1, new Sg(0, 16, mrA.lkey() + 1))));
        assertThat(c.await(cqA, 1)).extracting(Wc::status).containsExactly(4);
    }

    @Test
    void uc_and_rc_qps_naming_each_other_do_not_talk() throws Exception {
        int pd = c.allocPd();
        Cq cq = c.createCq(8);
        Qp rc = c.createQp(pd, cq, cq, 8, 1);
        Qp uc = c.createQp(pd, cq, cq, 8, 1, 3);
        Mr mr = c.regMr(pd, 4096, ACCESS_ALL);
        c.connect(rc, uc.qpn(), ACCESS_ALL, 1, 1);
        c.connectUc(uc, rc.qpn(), ACCESS_ALL);
        c.postRecv(rc, 1, new Sg(0, 8, mr.lkey()));
        c.postRecv(uc, 2, new Sg(8, 8, mr.lkey()));
        c.postSend(rc, List.of(Wr.send(3, new Sg(16, 8, mr.lkey()))));
        c.postSend(uc, List.of(Wr.send(4, new Sg(24, 8, mr.lkey()))));
        List<Wc> wcs = c.await(cq, 3); // rc: RETRY_EXC_ERR + its flushed receive; uc: sent (dropped)
        assertThat(wcs).extracting(Wc::wrId, Wc::status).contains(
                org.assertj.core.groups.Tuple.tuple(3L, 12), org.assertj.core.groups.Tuple.tuple(4L, 0));
        assertThat(wcs).filteredOn(w -> w.opcode() == 128 && w.status() == 0).as("nothing delivered").isEmpty();
        assertThat(fx.router.stats().ucDropped()).isEqualTo(1);
    }
}
