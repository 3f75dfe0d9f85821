// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import io.rdmanode.freeflow.testclient.FfClient.Mr;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import io.rdmanode.freeflow.testclient.FfClient.Sg;
import io.rdmanode.freeflow.testclient.FfClient.Wr;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Requests a buggy or malicious client could send: each is answered (or the connection dropped) and changes nothing. */
class HostileClientTest {
    RouterFixture fx;

    @AfterEach
    void close() throws Exception {
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void an_unknown_function_gets_einval_and_the_router_keeps_serving() throws Exception {
        fx = new RouterFixture();
        FfClient c = fx.client();
        assertThat(c.raw(99, 0, null, 4).getInt(0)).isEqualTo(22);
        assertThat(c.raw(-3, 0, null, 4).getInt(0)).isEqualTo(22);
        assertThat(c.allocPd()).isEqualTo(1);
    }

    @Test
    void a_wrong_body_size_gets_a_full_sized_error_answer() throws Exception {
        fx = new RouterFixture();
        FfClient c = fx.client();
        ByteBuffer shortCq = FfClient.buf(11);
        ByteBuffer r = c.call(FfClient.CREATE_CQ, shortCq, 108);
        assertThat(r.getInt(4)).as("CQ handle").isZero();
        assertThat(c.call(FfClient.DEREG_MR, FfClient.buf(5), 4).getInt(0)).isEqualTo(22);
        assertThat(c.raw(FfClient.ALLOC_PD, 4 << 20, null, 4).getInt(0)).as("absurd body size").isEqualTo(22);
        assertThat(fx.shmFiles()).isZero();
    }

    @Test
    void handles_out_of_range_or_not_owned_are_refused() throws Exception {
        fx = new RouterFixture();
        FfClient c = fx.client();
        assertThat(c.ret(FfClient.DESTROY_QP, 0)).isEqualTo(22);
        assertThat(c.ret(FfClient.DESTROY_QP, 10240)).isEqualTo(22);
        assertThat(c.ret(FfClient.DESTROY_QP, 77)).isEqualTo(22);
        assertThat(c.ret(FfClient.DEALLOC_PD, -1)).isEqualTo(22);
        assertThat(c.regMr(5, 4096, 1)).as("MR on a PD never allocated").isNull();
        assertThat(c.regMrMapping(0x1234, 0)).isEqualTo(22);
    }

    @Test
    void a_mailbox_only_serves_its_own_object_and_sane_bodies() throws Exception {
        fx = new RouterFixture();
        FfClient c = fx.client();
        int pd = c.allocPd();
        Cq cq = c.createCq(16);
        Qp a = c.createQp(pd, cq, cq, 8, 1);
        Qp b = c.createQp(pd, cq, cq, 8, 1);
        Qp forged = new Qp(b.handle(), b.qpn(), a.mailbox());
        assertThat(c.postRecv(forged, 1)).containsExactly(22, 0);
        a.mailbox().buf.putInt(16 + 16, a.handle()).putInt(16 + 20, 3).putInt(16 + 24, 0);
        assertThat(a.mailbox().roundTrip(FfClient.POST_RECV, 40, 7).getInt(0)).as("body shorter than its WRs").isEqualTo(22);
        assertThat(a.mailbox().roundTrip(FfClient.POLL_CQ, 8, 7).getInt(0)).as("poll in a QP mailbox").isEqualTo(22);
        assertThat(cq.mailbox().roundTrip(FfClient.POST_SEND, 32, 7).capacity()).as("post in a CQ mailbox").isZero();
        assertThat(c.postRecv(a, 2)).containsExactly(22, 1).as("RESET QP");
    }

    @Test
    void a_client_that_disconnects_mid_request_leaves_nothing_behind() throws Exception {
        fx = new RouterFixture();
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(fx.server.socket()))) {
            ByteBuffer h = FfClient.buf(22).putInt(0, 1).putInt(4, 7).putInt(8, 44);
            ch.write(h);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> fx.server.openConnections() == 0);
        assertThat(fx.client().allocPd()).isEqualTo(1);
        assertThat(fx.shmFiles()).isZero();
    }

    @Test
    void request_bodies_still_arriving_stay_within_the_budget_and_the_largest_sender_is_cut() throws Exception {
        fx = new RouterFixture();
        fx.server.bodyBudget(4L << 20);
        int mib = 1 << 20;
        List<SocketChannel> small = new java.util.ArrayList<>();
        try {
            // Headers that declare 1 MiB and send nothing more: each used to take 1 MiB of heap at once (70 of them
            // ended the agent with an OutOfMemoryError); now each holds the first 64 KiB buffer only.
            for (int i = 0; i < 40; i++) {
                SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(fx.server.socket()));
                writeAll(ch, FfClient.buf(12).putInt(0, 1).putInt(4, FfClient.ALLOC_PD).putInt(8, mib));
                small.add(ch);
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> fx.server.bodyBytes() == 40L * (64 << 10));
            try (SocketChannel first = SocketChannel.open(UnixDomainSocketAddress.of(fx.server.socket()));
                 SocketChannel second = SocketChannel.open(UnixDomainSocketAddress.of(fx.server.socket()))) {
                writeAll(first, FfClient.buf(12).putInt(0, 1).putInt(4, FfClient.ALLOC_PD).putInt(8, mib));
                writeAll(first, FfClient.buf(mib - 1));
                await().atMost(Duration.ofSeconds(5)).until(() -> fx.server.bodyBytes() == 40L * (64 << 10) + mib);
                try {
                    writeAll(second, FfClient.buf(12).putInt(0, 1).putInt(4, FfClient.ALLOC_PD).putInt(8, mib));
                    writeAll(second, FfClient.buf(mib - 1));
                } catch (java.io.IOException cut) {
                    // the router closed it while it was sending: expected
                }
                await().atMost(Duration.ofSeconds(5)).until(() -> fx.server.budgetCuts() == 1);
                second.configureBlocking(true);
                assertThat(second.read(FfClient.buf(4))).as("the largest sender, cut").isEqualTo(-1);
                assertThat(fx.server.bodyBytes()).isLessThanOrEqualTo(4L << 20)
                        .isEqualTo(40L * (64 << 10) + mib);
                // The first finishes its request: answered (a wrong body size gets EINVAL's full-sized answer).
                writeAll(first, FfClient.buf(1));
                ByteBuffer answer = FfClient.buf(4);
                while (answer.hasRemaining()) {
                    assertThat(first.read(answer)).isNotNegative();
                }
            }
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(fx.server.openConnections())
                    .as("the 40 that sent little, all still open").isEqualTo(40));
            assertThat(fx.client().allocPd()).isEqualTo(1);
        } finally {
            for (SocketChannel ch : small) {
                ch.close();
            }
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> fx.server.bodyBytes() == 0);
    }

    /**
     * Idle connections cost no native memory: each accepted connection held a 64 KiB direct buffer, and 768 idle
     * ones (6 processes at the per-process cap) used up the agent's 32 MiB of direct memory, which ended the
     * control loop and failed gRPC and HTTP elsewhere in the agent (hostile-client probe).
     */
    @Test
    void idle_connections_hold_no_direct_memory() throws Exception {
        fx = new RouterFixture();
        assertThat(fx.client().allocPd()).isEqualTo(1);            // the loop and a worker have their scratch
        java.lang.management.BufferPoolMXBean direct = java.lang.management.ManagementFactory
                .getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class).stream()
                .filter(pool -> pool.getName().equals("direct")).findFirst().orElseThrow();
        long before = direct.getMemoryUsed();
        List<SocketChannel> idle = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 100; i++) {
                idle.add(SocketChannel.open(UnixDomainSocketAddress.of(fx.server.socket())));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> fx.server.openConnections() >= 100);

            assertThat(direct.getMemoryUsed() - before).as("direct memory for 100 idle connections")
                    .isLessThan(100L * (64 << 10) / 4);
            assertThat(fx.client().allocPd()).isEqualTo(2);
        } finally {
            for (SocketChannel ch : idle) {
                ch.close();
            }
        }
    }

    private static void writeAll(SocketChannel ch, ByteBuffer b) throws java.io.IOException {
        while (b.hasRemaining()) {
            ch.write(b);
        }
    }

    @Test
    void per_tenant_limits_refuse_more_and_count_the_refusal() throws Exception {
        Limits d = Limits.defaults();
        fx = new RouterFixture(new Limits(8192, d.maxMrs(), 1, d.maxCqs(), d.maxPds(), d.maxMailboxes(), d.maxQpWr(),
                d.maxCqe(), d.maxSge()));
        FfClient c = fx.client();
        int pd = c.allocPd();
        Cq cq = c.createCq(16);
        assertThat(c.createQp(pd, cq, cq, 8, 1)).isNotNull();
        assertThat(c.createQp(pd, cq, cq, 8, 1)).isNull();
        assertThat(c.regMr(pd, 8192, 1)).isNotNull();
        assertThat(c.regMr(pd, 1, 1)).isNull();
        assertThat(fx.router.stats().limitRefusals()).isEqualTo(2);
    }

    @Test
    void destroying_everything_unlinks_every_shm_file_and_busy_objects_stay() throws Exception {
        fx = new RouterFixture();
        FfClient c = fx.client();
        int pd = c.allocPd();
        Cq cq = c.createCq(16);
        Qp qp = c.createQp(pd, cq, cq, 8, 1);
        Mr mr = c.regMr(pd, 65536, 7);
        assertThat(fx.shmFiles()).isEqualTo(3);
        assertThat(java.nio.file.Files.getPosixFilePermissions(fx.shm.resolve(mr.shmName())))
                .containsExactlyInAnyOrder(java.nio.file.attribute.PosixFilePermission.OWNER_READ,
                        java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
        assertThat(c.ret(FfClient.DESTROY_CQ, cq.handle())).as("CQ in use").isEqualTo(16);
        assertThat(c.ret(FfClient.DEALLOC_PD, pd)).as("PD in use").isEqualTo(16);
        assertThat(c.ret(FfClient.DESTROY_QP, qp.handle())).isZero();
        assertThat(c.ret(FfClient.DESTROY_CQ, cq.handle())).isZero();
        assertThat(c.ret(FfClient.DEREG_MR, mr.handle())).isZero();
        assertThat(c.ret(FfClient.DEREG_MR, mr.handle())).as("twice").isEqualTo(22);
        assertThat(c.ret(FfClient.DEALLOC_PD, pd)).isZero();
        assertThat(fx.shmFiles()).isZero();
        assertThat(fx.router.shmBytes()).isZero();
    }

    @Test
    void a_post_on_a_destroyed_qp_mailbox_is_answered_not_ignored() throws Exception {
        fx = new RouterFixture();
        FfClient c = fx.client();
        int pd = c.allocPd();
        Cq cq = c.createCq(16);
        Qp qp = c.createQp(pd, cq, cq, 8, 1);
        Mr mr = c.regMr(pd, 4096, 7);
        c.ret(FfClient.DESTROY_QP, qp.handle());
        // The router no longer scans the mailbox: a client using it after destroy gets no answer, like a NIC would
        // not process a destroyed QP; the state word stays REQ_DONE and nothing in the router changes.
        qp.mailbox().buf.putInt(0, 0);
        assertThat(fx.router.tenants().get(0).qps()).isZero();
        assertThat(c.postSend(new Qp(qp.handle(), qp.qpn(), c.createQp(pd, cq, cq, 8, 1).mailbox()),
                List.of(Wr.send(1, new Sg(0, 1, mr.lkey()))))).containsExactly(22, 1);
    }
}
