// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import io.rdmanode.freeflow.testclient.FfClient.Mr;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import io.rdmanode.freeflow.testclient.FfClient.Sg;
import io.rdmanode.freeflow.testclient.FfClient.Srq;
import io.rdmanode.freeflow.testclient.FfClient.Wc;
import io.rdmanode.freeflow.testclient.FfClient.Wr;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * SRQs (the genuine client's ibv_srq_pingpong): two responder QPs share one receive queue, fed through the SRQ's
 * own mailbox or the control socket; receives are taken in posting order whichever QP a SEND arrives on, a QP
 * that fails leaves them in the SRQ, and an SRQ in use cannot be destroyed.
 */
class SoftwareSrqTest {
    static final int ACCESS_ALL = 1 | 2 | 4;
    static final int EINVAL = 22;
    RouterFixture fx;
    FfClient c;
    int pd;
    Cq sendCq;
    Cq recvCq;
    Srq srq;
    Qp a1;
    Qp a2;
    Qp b1;
    Qp b2;
    Mr mr;

    @BeforeEach
    void given_two_senders_connected_to_two_responders_on_one_srq() throws Exception {
        fx = new RouterFixture();
        c = fx.client();
        pd = c.allocPd();
        sendCq = c.createCq(64);
        recvCq = c.createCq(64);
        srq = c.createSrq(pd, 8, 2);
        assertThat(srq).isNotNull();
        a1 = c.createQp(pd, sendCq, sendCq, 16, 2);
        a2 = c.createQp(pd, sendCq, sendCq, 16, 2);
        b1 = c.createQp(pd, recvCq, recvCq, 16, 2, 2, srq);
        b2 = c.createQp(pd, recvCq, recvCq, 16, 2, 2, srq);
        mr = c.regMr(pd, 1 << 16, ACCESS_ALL);
        c.connect(a1, b1.qpn(), ACCESS_ALL, 1, 7);
        c.connect(b1, a1.qpn(), ACCESS_ALL, 1, 7);
        c.connect(a2, b2.qpn(), ACCESS_ALL, 1, 7);
        c.connect(b2, a2.qpn(), ACCESS_ALL, 1, 7);
    }

    @AfterEach
    void close() throws Exception {
        fx.close();
    }

    @Test
    void sends_on_either_qp_take_the_srqs_receives_in_posting_order() throws Exception {
        mr.buf().put(0, "one".getBytes()).put(8, "two".getBytes());
        assertThat(c.postSrqRecv(srq, 101, new Sg(1000, 16, mr.lkey()))).containsExactly(0, 0);
        assertThat(c.postSrqRecvSlow(srq, 102, new Sg(2000, 16, mr.lkey()))).containsExactly(0, 0);

        c.postSend(a2, List.of(Wr.send(1, new Sg(0, 3, mr.lkey()))));
        c.postSend(a1, List.of(Wr.send(2, new Sg(8, 3, mr.lkey()))));

        assertThat(c.await(sendCq, 2)).extracting(Wc::wrId, Wc::status).containsExactly(tuple(1L, 0), tuple(2L, 0));
        assertThat(c.await(recvCq, 2)).extracting(Wc::wrId, Wc::byteLen, Wc::qpNum, Wc::srcQp)
                .containsExactly(tuple(101L, 3, b2.qpn(), a2.qpn()), tuple(102L, 3, b1.qpn(), a1.qpn()));
        byte[] got = new byte[3];
        mr.buf().get(1000, got);
        assertThat(new String(got)).isEqualTo("one");
        mr.buf().get(2000, got);
        assertThat(new String(got)).isEqualTo("two");
    }

    @Test
    void a_qp_with_an_srq_has_no_receive_queue_of_its_own() {
        assertThat(c.postRecv(b1, 1, new Sg(0, 8, mr.lkey()))).containsExactly(EINVAL, 1);
    }

    @Test
    void a_send_waiting_out_an_rnr_is_delivered_as_soon_as_the_srq_gets_a_receive() {
        c.postSend(a1, List.of(Wr.send(7, new Sg(0, 8, mr.lkey()))));
        assertThat(c.pollCq(sendCq, 1)).isEmpty();

        c.postSrqRecv(srq, 70, new Sg(0, 8, mr.lkey()));

        assertThat(c.await(recvCq, 1)).extracting(Wc::wrId, Wc::status).containsExactly(tuple(70L, 0));
        assertThat(c.await(sendCq, 1)).extracting(Wc::wrId, Wc::status).containsExactly(tuple(7L, 0));
        assertThat(fx.router.stats().rnrNaks()).isPositive();
    }

    @Test
    void a_failed_qp_leaves_the_srqs_receives_to_the_other_qps() throws Exception {
        c.postSrqRecv(srq, 201, new Sg(0, 8, mr.lkey()));
        assertThat(c.modifyQp(b1, 6, 1, 0, 0, 0, 0)).isZero();           // b1 to ERR

        c.postSend(a2, List.of(Wr.send(3, new Sg(0, 8, mr.lkey()))));

        assertThat(c.await(recvCq, 1)).extracting(Wc::wrId, Wc::status, Wc::qpNum)
                .containsExactly(tuple(201L, 0, b2.qpn()));
    }

    @Test
    void the_srq_bounds_its_posts() {
        for (int i = 0; i < 8; i++) {
            assertThat(c.postSrqRecv(srq, i, new Sg(0, 8, mr.lkey()))).containsExactly(0, 0);
        }
        assertThat(c.postSrqRecv(srq, 9, new Sg(0, 8, mr.lkey()))).containsExactly(12, 1);           // ENOMEM
        assertThat(c.postSrqRecv(srq, 10, new Sg(0, 8, mr.lkey()), new Sg(8, 8, mr.lkey()),
                new Sg(16, 8, mr.lkey()))).containsExactly(EINVAL, 1);                                // 3 SGEs > 2
    }

    @Test
    void modify_resizes_and_checks_the_limit_against_max_wr() throws Exception {
        c.postSrqRecv(srq, 1, new Sg(0, 8, mr.lkey()));
        c.postSrqRecv(srq, 2, new Sg(0, 8, mr.lkey()));

        assertThat(c.modifySrq(srq, 16, 0, 1)).isZero();
        assertThat(c.modifySrq(srq, 1, 0, 1)).as("below the 2 posted").isEqualTo(EINVAL);
        assertThat(c.modifySrq(srq, 0, 17, 2)).as("IBV_SRQ_LIMIT beyond max_wr").isEqualTo(EINVAL);
        assertThat(c.modifySrq(srq, 0, 16, 2)).as("IBV_SRQ_LIMIT").isZero();
        assertThat(c.modifySrq(srq, 0, 0, 4)).as("unknown mask bit").isEqualTo(EINVAL);
        for (int i = 0; i < 14; i++) {
            assertThat(c.postSrqRecv(srq, 10 + i, new Sg(0, 8, mr.lkey()))).containsExactly(0, 0);
        }
    }

    @Test
    void an_armed_limit_fires_one_srq_limit_reached_for_the_srq_once_fewer_receives_are_posted() throws Exception {
        assertThat(c.asyncFd()).as("ret, fd").satisfies(r -> assertThat(r[0]).isZero(), r -> assertThat(r[1]).isPositive());
        for (int i = 0; i < 4; i++) {
            c.postSrqRecv(srq, 100 + i, new Sg(0, 8, mr.lkey()));
        }
        assertThat(c.modifySrq(srq, 0, 3, 2)).isZero();

        c.postSend(a1, List.of(Wr.send(1, new Sg(0, 8, mr.lkey()))));
        c.await(recvCq, 1);
        assertThat(c.asyncEvents()).as("3 left: not below the limit").isEmpty();

        c.postSend(a2, List.of(Wr.send(2, new Sg(0, 8, mr.lkey()))));
        c.postSend(a1, List.of(Wr.send(3, new Sg(0, 8, mr.lkey()))));
        c.await(recvCq, 2);

        assertThat(c.asyncEvents()).as("one SRQ_LIMIT_REACHED: the event disarms the limit")
                .containsExactly(new FfClient.AsyncEvent(srq.handle(), AsyncEvents.SRQ_LIMIT_REACHED, 0));
        assertThat(c.asyncEvent().ret()).as("none left").isEqualTo(11);
    }

    @Test
    void an_srq_in_use_is_not_destroyed_and_its_mailbox_goes_with_it() throws Exception {
        long files = fx.shmFiles();
        assertThat(c.ret(FfClient.DESTROY_SRQ, srq.handle())).isEqualTo(16);                   // EBUSY
        assertThat(c.ret(FfClient.DESTROY_QP, b1.handle())).isZero();
        assertThat(c.ret(FfClient.DESTROY_QP, b2.handle())).isZero();
        assertThat(c.ret(FfClient.DESTROY_SRQ, srq.handle())).isZero();
        assertThat(fx.shmFiles()).isEqualTo(files - 3);
        assertThat(c.ret(FfClient.DESTROY_SRQ, srq.handle())).as("gone").isEqualTo(EINVAL);
    }

    @Test
    void an_srq_of_another_pd_is_refused_and_a_foreign_handle_is_not_found() throws Exception {
        int otherPd = c.allocPd();
        assertThat(c.createQp(otherPd, recvCq, recvCq, 4, 1, 2, srq)).isNull();
        assertThat(c.createQp(pd, recvCq, recvCq, 4, 1, 2, new Srq(srq.handle() + 1, srq.mailbox()))).isNull();
        assertThat(fx.router.tenants()).singleElement().extracting(TenantFigures::srqs).isEqualTo(1);
    }
}
