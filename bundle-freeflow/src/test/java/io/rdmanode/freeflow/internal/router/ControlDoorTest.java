// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import io.rdmanode.freeflow.testclient.FfClient.Mr;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import io.rdmanode.freeflow.testclient.FfClient.Sg;
import io.rdmanode.freeflow.testclient.FfClient.Wr;
import io.rdmanode.freeflow.internal.wire.Errno;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The control socket's bounds (issue 21), through the real socket: idle and waiting clients hold no worker, caps
 * per tenant refuse with their errno and are counted, GET_CQ_EVENT on an unknown channel is an error the client's
 * read sees. Other tenants are child JVMs ({@link TenantProcess}): the router tells tenants apart by peer pid.
 */
class ControlDoorTest {
    private static final int ACCESS = 7;
    RouterFixture fx;
    final List<Process> children = new ArrayList<>();
    final List<SocketChannel> held = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (SocketChannel ch : held) {
            ch.close();
        }
        for (Process p : children) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (fx != null) {
            fx.close();
        }
    }

    Process child(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
                System.getProperty("java.class.path"), TenantProcess.class.getName()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        children.add(p);
        return p;
    }

    static String firstLine(Process p) throws IOException {
        return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
    }

    Map<Resource, Long> refusals() {
        int pid = (int) ProcessHandle.current().pid();
        return fx.router.tenants().stream().filter(t -> t.pid() == pid).findFirst().orElseThrow().refusals();
    }

    @Test
    void a_new_tenants_qp_setup_completes_while_1000_idle_connections_are_open() throws Exception {
        fx = new RouterFixture(Limits.defaults(), new ControlSettings(2, 4096, 2000, 60_000, 5_000));
        Process idle = child("idle", fx.server.socket().toString(), "1000");
        assertThat(firstLine(idle)).isEqualTo("ready 1000");
        await().atMost(Duration.ofSeconds(20)).until(() -> fx.server.openConnections() >= 1000);

        TenantProcess.qpAndEvent(fx.client());

        assertThat(fx.server.connectionsByPid()).containsEntry((int) idle.pid(), 1000);
        assertThat(fx.server.openConnections()).isGreaterThanOrEqualTo(1000);
    }

    @Test
    void event_mode_channels_past_the_cap_are_refused_and_other_tenants_are_unaffected() throws Exception {
        fx = new RouterFixture(Limits.defaults().withChannels(64, 1L << 40), new ControlSettings(2, 4096, 128, 60_000, 5_000));
        FfClient c = fx.client();
        List<Integer> channels = new ArrayList<>();
        List<Cq> cqs = new ArrayList<>();
        int refused = 0;
        for (int i = 0; i < 1000; i++) {
            int fd = c.createCompChannel();
            if (fd < 0) {
                refused++;
                continue;
            }
            Cq cq = c.createCq(4, fd);
            assertThat(c.reqNotifyCq(cq)).isZero();
            SocketChannel events = c.open();
            held.add(events);
            c.sendGetCqEvent(events, fd);
            channels.add(fd);
            cqs.add(cq);
        }
        assertThat(channels).hasSize(64);
        assertThat(refused).isEqualTo(936);
        assertThat(refusals()).containsEntry(Resource.CHANNELS, 936L);
        assertThat(Resource.CHANNELS.errno()).isEqualTo(Errno.EMFILE);
        await().atMost(Duration.ofSeconds(10)).until(() -> fx.server.parkedEvents() >= 64);

        // Other tenants: QP setup and their own event, while 64 GET_CQ_EVENTs wait with 2 workers.
        Process other = child("qp", fx.server.socket().toString(), fx.shm.toString());
        assertThat(firstLine(other)).isEqualTo("ok");
        assertThat(other.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(other.exitValue()).isZero();

        // and a parked wait of the capped tenant is answered when its CQ fires
        int pd = c.allocPd();
        Cq rcq = c.createCq(16);
        Qp a = c.createQp(pd, cqs.get(7), rcq, 8, 1);
        Qp b = c.createQp(pd, rcq, rcq, 8, 1);
        Mr mr = c.regMr(pd, 4096, ACCESS);
        c.connect(a, b.qpn(), ACCESS, 1, 7);
        c.connect(b, a.qpn(), ACCESS, 1, 7);
        c.postRecv(b, 1, new Sg(0, 64, mr.lkey()));
        c.postSend(a, List.of(Wr.send(2, new Sg(64, 64, mr.lkey()))));
        assertThat(FfClient.readCqEvent(held.get(7))[0]).isEqualTo(cqs.get(7).handle());
    }

    @Test
    void get_cq_event_on_an_unknown_channel_resets_the_connection_instead_of_answering_zeros() throws Exception {
        fx = new RouterFixture();
        FfClient c = fx.client();
        for (int fd : new int[] {-1, 5, 10239}) {
            try (SocketChannel ch = c.open()) {
                c.sendGetCqEvent(ch, fd);
                assertThatThrownBy(() -> FfClient.readCqEvent(ch)).as("channel " + fd).isInstanceOf(IOException.class)
                        .hasMessageContaining("reset");
            }
        }
        assertThat(c.allocPd()).as("the router serves on").isPositive();
    }

    @Test
    void a_channel_destroyed_under_a_parked_wait_resets_it() throws Exception {
        fx = new RouterFixture();
        FfClient c = fx.client();
        int fd = c.createCompChannel();
        SocketChannel events = c.open();
        held.add(events);
        c.sendGetCqEvent(events, fd);
        await().atMost(Duration.ofSeconds(5)).until(() -> fx.server.parkedEvents() == 1);
        assertThat(c.ret(28, fd)).isZero();
        assertThatThrownBy(() -> FfClient.readCqEvent(events)).hasMessageContaining("reset");
    }

    @Test
    void each_cap_is_refused_with_its_errno_and_counted() throws Exception {
        long mailbox = Mailbox.SIZE;
        Limits d = Limits.defaults();
        Limits caps = new Limits(d.maxMrBytes(), 1, 1, 2, 1, d.maxMailboxes(), d.maxQpWr(), d.maxCqe(), d.maxSge(), 0, 1,
                3 * mailbox + 4096);
        fx = new RouterFixture(caps, new ControlSettings(2, 4096, 64, 60_000, 5_000));
        FfClient c = fx.client();
        int pd = c.allocPd();
        assertThat(c.allocPd()).as("PDs").isZero();
        Cq cq = c.createCq(16);
        assertThat(c.createCq(16)).isNotNull();
        assertThat(c.createCq(16)).as("CQs").isNull();
        assertThat(c.createQp(pd, cq, cq, 8, 1)).isNotNull();
        assertThat(c.createQp(pd, cq, cq, 8, 1)).as("QPs").isNull();
        assertThat(c.regMr(pd, 4096, ACCESS)).isNotNull();
        assertThat(c.regMr(pd, 4096, ACCESS)).as("MRs").isNull();
        assertThat(c.createSrq(pd, 8, 1)).as("shared memory: a fourth mailbox").isNull();
        assertThat(c.createCompChannel()).isGreaterThanOrEqualTo(0);
        assertThat(c.createCompChannel()).as("channels").isEqualTo(-1);
        int me = (int) ProcessHandle.current().pid();
        await().atMost(Duration.ofSeconds(5)).until(() -> !fx.server.connectionsByPid().containsKey(me));
        fx.server.settings(new ControlSettings(2, 4096, 2, 60_000, 5_000));   // applied live
        held.add(c.open());
        held.add(c.open());
        await().atMost(Duration.ofSeconds(5))
                .until(() -> fx.server.connectionsByPid().getOrDefault(me, 0) == 2);
        assertThat(c.ret(FfClient.DEALLOC_PD, pd)).as("connections").isEqualTo(Errno.EAGAIN);

        assertThat(refusals()).containsExactlyInAnyOrderEntriesOf(Map.of(Resource.CONNECTIONS, 1L, Resource.CHANNELS, 1L,
                Resource.PDS, 1L, Resource.CQS, 1L, Resource.QPS, 1L, Resource.SRQS, 0L, Resource.MRS, 1L, Resource.SHM, 1L));
        assertThat(fx.router.stats().limitRefusals()).isEqualTo(7);
        assertThat(List.of(Resource.PDS, Resource.CQS, Resource.QPS, Resource.MRS, Resource.SHM))
                .allSatisfy(r -> assertThat(r.errno()).isEqualTo(Errno.ENOMEM));
    }

    @Test
    void idle_connections_of_a_client_holding_nothing_are_cut_but_a_waiting_event_connection_is_not() throws Exception {
        fx = new RouterFixture(Limits.defaults(), new ControlSettings(2, 4096, 128, 300, 5_000));
        FfClient c = fx.client();
        int fd = c.createCompChannel();
        SocketChannel events = c.open();
        held.add(events);
        c.sendGetCqEvent(events, fd);
        Process idle = child("idle", fx.server.socket().toString(), "2");
        assertThat(firstLine(idle)).isEqualTo("ready 2");
        await().atMost(Duration.ofSeconds(10)).until(() -> fx.server.idleCuts() == 2);
        assertThat(fx.server.connectionsByPid()).as("the child's two cut, the waiting one kept")
                .doesNotContainKey((int) idle.pid()).containsEntry((int) ProcessHandle.current().pid(), 1);
        assertThat(fx.server.parkedEvents()).isEqualTo(1);
    }

    /**
     * The genuine librdmacm keeps a pool of connections from its start and writes its next call on any of them,
     * however long its application paused: a quiet connection of a process holding objects is part of its session
     * (cut, the client would die of SIGPIPE). Once the process holds nothing, the timeout applies again.
     */
    @Test
    void a_quiet_connection_of_a_client_holding_objects_is_kept_and_answers_until_it_holds_nothing() throws Exception {
        fx = new RouterFixture(Limits.defaults(), new ControlSettings(2, 4096, 128, 300, 5_000));
        FfClient c = fx.client();
        int pd = c.allocPd();
        SocketChannel pooled = c.open();
        held.add(pooled);
        // Opened after ours: once the child's connections are cut, ours has been quiet longer than the timeout.
        Process idle = child("idle", fx.server.socket().toString(), "1");
        assertThat(firstLine(idle)).isEqualTo("ready 1");
        await().atMost(Duration.ofSeconds(10)).until(() -> fx.server.idleCuts() == 1);
        assertThat(fx.server.connectionsByPid()).doesNotContainKey((int) idle.pid());
        int second = callOn(pooled, FfClient.ALLOC_PD, FfClient.buf(0), 4).getInt(0);
        assertThat(second).as("ALLOC_PD on the quiet pooled connection").isPositive();
        assertThat(callOn(pooled, FfClient.DEALLOC_PD, FfClient.buf(4).putInt(0, second), 4).getInt(0)).isZero();
        assertThat(fx.server.idleCuts()).isEqualTo(1);

        assertThat(c.ret(FfClient.DEALLOC_PD, pd)).as("its last object freed").isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> fx.server.idleCuts() == 2);
        assertThat(pooled.read(ByteBuffer.allocate(1))).as("cut: end of stream").isEqualTo(-1);
    }

    /**
     * The genuine librdmacm connects its pool, then opens the verbs devices (requests on other connections), and
     * only then creates its first object: a pooled connection is quiet while its process is busy. The idle clock is
     * the process's: its connections stay while it keeps asking, and are cut once it has been quiet as long.
     */
    @Test
    void a_quiet_connection_stays_while_its_process_asks_on_others_and_goes_when_it_stops() throws Exception {
        fx = new RouterFixture(Limits.defaults(), new ControlSettings(2, 4096, 128, 2_000, 5_000));
        FfClient c = fx.client();
        SocketChannel pooled = c.open();
        held.add(pooled);
        // Busy, holding nothing: a request every few milliseconds on fresh connections, far within the timeout.
        AtomicBoolean asking = new AtomicBoolean(true);
        Thread asker = new Thread(() -> {
            ByteBuffer port = FfClient.buf(1).put(0, (byte) 1);
            while (asking.get()) {
                try {
                    c.call(FfClient.QUERY_PORT, port, 48);
                    Thread.sleep(5);
                } catch (IOException | InterruptedException e) {
                    return;
                }
            }
        }, "asker");
        asker.start();
        Process idle = child("idle", fx.server.socket().toString(), "1");
        assertThat(firstLine(idle)).isEqualTo("ready 1");
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> fx.server.idleCuts() >= 1);
        } finally {
            asking.set(false);
            asker.join();
        }
        assertThat(fx.server.idleCuts()).as("the child's only").isEqualTo(1);
        assertThat(fx.server.connectionsByPid()).doesNotContainKey((int) idle.pid());
        ByteBuffer port = FfClient.buf(1).put(0, (byte) 1);
        assertThat(callOn(pooled, FfClient.QUERY_PORT, port, 48).getInt(0)).as("port state on the pooled connection")
                .isPositive();

        await().atMost(Duration.ofSeconds(30)).until(() -> fx.server.idleCuts() == 2);
        assertThat(pooled.read(ByteBuffer.allocate(1))).as("quiet and holding nothing: cut").isEqualTo(-1);
    }

    /** One request on a connection kept open, the way the genuine librdmacm uses its pooled ones. */
    static ByteBuffer callOn(SocketChannel ch, int func, ByteBuffer body, int rspSize) throws IOException {
        ByteBuffer h = FfClient.buf(12).putInt(0, 7).putInt(4, func).putInt(8, body.capacity());
        while (h.hasRemaining()) {
            ch.write(h);
        }
        body.clear();
        while (body.hasRemaining()) {
            ch.write(body);
        }
        ByteBuffer r = FfClient.buf(rspSize);
        while (r.hasRemaining()) {
            if (ch.read(r) < 0) {
                throw new IOException("router closed after " + r.position() + " of " + rspSize + " bytes");
            }
        }
        return r.clear();
    }

    @Test
    void at_the_total_cap_new_clients_wait_in_the_backlog_and_get_in_when_one_closes() throws Exception {
        fx = new RouterFixture(Limits.defaults(), new ControlSettings(2, 16, 64, 60_000, 5_000));
        FfClient c = fx.client();
        for (int i = 0; i < 16; i++) {
            held.add(c.open());
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> fx.server.openConnections() == 16);
        SocketChannel waiting = c.open();             // queued in the listen backlog, not accepted
        held.add(waiting);
        c.sendGetCqEvent(waiting, 5);
        await().atMost(Duration.ofSeconds(5)).until(() -> fx.server.acceptPauses() >= 1);
        assertThat(fx.server.openConnections()).isEqualTo(16);
        held.remove(0).close();
        assertThatThrownBy(() -> FfClient.readCqEvent(waiting)).as("accepted once one closed, then answered")
                .hasMessageContaining("reset");
    }
}
