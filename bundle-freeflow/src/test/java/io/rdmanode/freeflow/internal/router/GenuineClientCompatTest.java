// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.freeflow.internal.posix.PeerCred;
import io.rdmanode.freeflow.internal.wire.CreateCqRequest;
import io.rdmanode.freeflow.internal.wire.ReqNotifyCqRequest;
import io.rdmanode.freeflow.internal.wire.WorkCompletion;
import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import io.rdmanode.freeflow.testclient.FfClient.Mr;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import io.rdmanode.freeflow.testclient.FfClient.Sg;
import io.rdmanode.freeflow.testclient.FfClient.Wc;
import io.rdmanode.freeflow.testclient.FfClient.Wr;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the genuine Freeflow client (libibverbs-1.2.1mlnx1 + libmlx4, scripts/ffl-compat) needs beyond the wire
 * layouts: found by running its own ibv_rc_pingpong against the router.
 */
class GenuineClientCompatTest {
    static final int ACCESS_ALL = 1 | 2 | 4;

    static Limits capped(int perPoll) {
        Limits d = Limits.defaults();
        return new Limits(d.maxMrBytes(), d.maxMrs(), d.maxQps(), d.maxCqs(), d.maxPds(), d.maxMailboxes(), d.maxQpWr(),
                d.maxCqe(), d.maxSge(), perPoll);
    }

    @Test
    void a_poll_returns_at_most_max_completions_per_poll_and_the_rest_stay_queued_in_order() throws Exception {
        try (RouterFixture fx = new RouterFixture(capped(1))) {
            FfClient c = fx.client();
            int pd = c.allocPd();
            Cq cqA = c.createCq(64);
            Cq cqB = c.createCq(64);
            Qp a = c.createQp(pd, cqA, cqA, 32, 4);
            Qp b = c.createQp(pd, cqB, cqB, 32, 4);
            Mr mrA = c.regMr(pd, 1 << 16, ACCESS_ALL);
            Mr mrB = c.regMr(pd, 1 << 16, ACCESS_ALL);
            c.connect(a, b.qpn(), ACCESS_ALL, 1, 7);
            c.connect(b, a.qpn(), ACCESS_ALL, 1, 7);
            for (int i = 0; i < 3; i++) {
                c.postRecv(b, 10 + i, new Sg(i * 64L, 64, mrB.lkey()));
            }
            c.postSend(a, List.of(Wr.send(1, new Sg(0, 64, mrA.lkey())), Wr.send(2, new Sg(64, 64, mrA.lkey())),
                    Wr.send(3, new Sg(128, 64, mrA.lkey()))));
            c.await(cqA, 3);

            List<Long> ids = new ArrayList<>();
            while (ids.size() < 3) {
                List<Wc> got = c.pollCq(cqB, 16);
                assertThat(got).hasSizeLessThanOrEqualTo(1);
                got.forEach(w -> ids.add(w.wrId()));
            }
            assertThat(ids).containsExactly(10L, 11L, 12L);
        }
    }

    @Test
    void no_cap_by_default() {
        assertThat(Limits.defaults().completionsFor(16)).isEqualTo(16);
        assertThat(capped(1).completionsFor(16)).isEqualTo(1);
        assertThat(capped(4).completionsFor(2)).isEqualTo(2);
    }

    @Test
    void arming_a_cq_that_still_holds_completions_fires_at_once_like_connectx() throws Exception {
        try (RouterFixture fx = new RouterFixture()) {
            Router r = fx.router;
            int pid = (int) ProcessHandle.current().pid();
            Tenant t = r.tenant(new PeerCred(pid, 0, 0), 1);
            CompChannel ch = r.channels().create(t);
            int empty = r.createCq(t, new CreateCqRequest(ch.fd, 0, 16)).handle();
            int full = r.createCq(t, new CreateCqRequest(ch.fd, 0, 16)).handle();
            synchronized (r) {
                Router.cq(t, full).entries.add(new WorkCompletion(7, 0, WorkCompletion.WC_RECV, 8, 0, 1, 2, 0));
            }

            r.channels().arm(t, new ReqNotifyCqRequest(empty, false));
            r.channels().arm(t, new ReqNotifyCqRequest(full, true));
            assertThat(ch.events).as("empty CQ, or solicited-only arming: wait for the next completion").isEmpty();

            r.channels().arm(t, new ReqNotifyCqRequest(full, false));
            assertThat(ch.events).containsExactly(full);
            assertThat(r.channels().next(t, ch.fd, null).cqHandle()).isEqualTo(full);
            assertThat(Router.cq(t, full).armed).as("one event per arming").isFalse();
            assertThat(Router.cq(t, empty).armed).isTrue();
        }
    }

    @Test
    void a_refused_fd_first_call_still_sends_its_fd_message_so_the_answer_stays_framed() throws Exception {
        try (RouterFixture fx = new RouterFixture()) {
            FfClient c = fx.client();
            // CM_CREATE_EVENT_CHANNEL (36): librdmacm's recv_fd reads 2 bytes first, then {ret_errno, ec}.
            ByteBuffer r = c.call(36, null, 2 + 8);
            assertThat(new String(new byte[] {r.get(0), r.get(1)})).isEqualTo("fd");
            assertThat(r.getInt(2)).isEqualTo(95);
            assertThat(r.getInt(6)).as("ec.fd: no channel").isEqualTo(-1);
            // and the router goes on serving the next call (on a fresh connection, as the client makes)
            assertThat(c.allocPd()).isPositive();
        }
    }
}
