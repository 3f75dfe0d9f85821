// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.AsyncEvent;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import io.rdmanode.freeflow.testclient.FfClient.Srq;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The device's async events through the verbs transport, against {@link FakeVerbsDevice} (which raises them on a
 * real pipe the router's event thread polls): each reaches the tenant that owns its QP, CQ or SRQ, named by that
 * tenant's handle, and nobody else, even a tenant whose objects have the same handles (a child JVM, {@link
 * TenantProcess}: tenants are told apart by pid); a port event reaches every tenant; every event is acknowledged to the
 * device. The real device's events run in {@code FreeflowVerbsSoftRoceIT}.
 */
class VerbsAsyncEventsTest {
    static final Duration WAIT = Duration.ofSeconds(20);
    FakeVerbsDevice dev;
    RouterFixture fx;
    FfClient c;
    int pd;
    Cq cq;
    Qp qp;
    Srq srq;
    final List<Process> children = new ArrayList<>();

    @BeforeEach
    void given_a_tenant_with_a_qp_cq_and_srq_on_a_device() throws Exception {
        dev = new FakeVerbsDevice(3);
        fx = new RouterFixture(Limits.defaults(), PollerSettings.defaults(), ControlSettings.defaults(), dev, 1);
        c = fx.client();
        assertThat(c.asyncFd()[0]).isZero();
        pd = c.allocPd();
        cq = c.createCq(16);
        qp = c.createQp(pd, cq, cq, 8, 1);
        srq = c.createSrq(pd, 8, 1);
    }

    @AfterEach
    void close() throws Exception {
        for (Process p : children) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        fx.close();
    }

    private long deviceQp() {
        return dev.qpOfQpn.get(qp.qpn());
    }

    private List<AsyncEvent> awaitEvents(int n) {
        List<AsyncEvent> got = new ArrayList<>();
        await().atMost(WAIT).until(() -> {
            got.addAll(c.asyncEvents());
            return got.size() >= n;
        });
        return got;
    }

    @Test
    void a_qp_event_reaches_its_tenant_only_and_a_port_event_every_tenant() throws Exception {
        Process other = child();
        BufferedReader out = new BufferedReader(new InputStreamReader(other.getInputStream(), StandardCharsets.UTF_8));
        OutputStream in = other.getOutputStream();
        assertThat(out.readLine()).isEqualTo("ready");

        dev.raise(AsyncEvents.QP_FATAL, deviceQp());
        dev.raise(AsyncEvents.PORT_ERR, 1);

        assertThat(awaitEvents(2)).containsExactly(new AsyncEvent(qp.handle(), AsyncEvents.QP_FATAL, 0),
                new AsyncEvent(1, AsyncEvents.PORT_ERR, 0));
        assertThat(dev.acked).extracting(io.rdmanode.freeflow.internal.verbs.VerbsDevice.AsyncEvent::type).containsExactly(AsyncEvents.QP_FATAL,
                AsyncEvents.PORT_ERR);
        assertThat(c.queryQp(qp).get(io.rdmanode.freeflow.internal.wire.LayoutTable.struct("query_qp_rsp").off("qp_state")))
                .as("QP_FATAL: the QP is in ERR").isEqualTo((byte) QueuePair.ERR);
        in.write('\n');
        in.flush();
        assertThat(out.readLine()).as("the other tenant, whose QP also has handle " + qp.handle())
                .isEqualTo("events 1/" + AsyncEvents.PORT_ERR);
    }

    @Test
    void cq_and_srq_events_name_the_tenants_handles_and_an_srq_limit_is_armed_on_the_device() throws Exception {
        assertThat(c.modifySrq(srq, 0, 3, 2)).isZero();
        long deviceSrq = dev.srqLimits.keySet().iterator().next();
        assertThat(dev.srqLimits).containsEntry(deviceSrq, 3);
        long deviceCq = dev.cqOfQp.get(deviceQp());

        dev.raise(AsyncEvents.SRQ_LIMIT_REACHED, deviceSrq);
        dev.raise(AsyncEvents.CQ_ERR, deviceCq);
        dev.raise(AsyncEvents.QP_LAST_WQE_REACHED, deviceQp());

        assertThat(awaitEvents(3)).containsExactly(new AsyncEvent(srq.handle(), AsyncEvents.SRQ_LIMIT_REACHED, 0),
                new AsyncEvent(cq.handle(), AsyncEvents.CQ_ERR, 0),
                new AsyncEvent(qp.handle(), AsyncEvents.QP_LAST_WQE_REACHED, 0));
    }

    @Test
    void an_event_of_a_destroyed_object_is_acknowledged_and_given_to_nobody() throws Exception {
        long gone = deviceQp();
        assertThat(c.ret(FfClient.DESTROY_QP, qp.handle())).isZero();

        dev.raise(AsyncEvents.QP_FATAL, gone);
        dev.raise(AsyncEvents.PORT_ACTIVE, 1);

        assertThat(awaitEvents(1)).containsExactly(new AsyncEvent(1, AsyncEvents.PORT_ACTIVE, 0));
        assertThat(dev.acked).hasSize(2);
    }

    @Test
    void destroying_a_qp_whose_event_is_being_handled_completes_the_event_is_acknowledged_first() throws Exception {
        dev.eventDuringDestroy = true;           // ibv_destroy_qp waits for the ack while the router's monitor is held

        assertThat(c.ret(FfClient.DESTROY_QP, qp.handle())).as("destroyed, not EBUSY").isZero();
        assertThat(dev.acked).extracting(io.rdmanode.freeflow.internal.verbs.VerbsDevice.AsyncEvent::type)
                .containsExactly(AsyncEvents.QP_LAST_WQE_REACHED);
        assertThat(dev.calls).contains("free qp");
    }

    @Test
    void destroying_a_cq_the_device_just_signalled_completes_its_events_are_acknowledged_first() throws Exception {
        dev.signalDuringDestroy = true;          // ibv_destroy_cq waits for the acks while the router's monitor is held
        long deviceCq = dev.cqOfQp.get(deviceQp());

        assertThat(c.ret(FfClient.DESTROY_QP, qp.handle())).isZero();
        assertThat(dev.calls).as("the last QP on it frees the device CQ").contains("free cq");
        assertThat(dev.cqAcks).singleElement().satisfies(a -> assertThat(a).containsExactly(deviceCq, 1));
    }

    @Test
    void the_async_fd_a_client_receives_is_readable_while_an_event_is_queued() throws Exception {
        int[] got = c.asyncFdReceived();
        assertThat(got[0]).isZero();
        int fd = got[2];
        assertThat(fd).as("a descriptor came with the answer").isNotNegative();
        io.rdmanode.posix.Posix libc = io.rdmanode.posix.Posix.libc();
        try {
            assertThat(libc.poll(new int[] {fd}, io.rdmanode.posix.Posix.POLLIN, 0)[0]).as("nothing queued").isZero();

            dev.raise(AsyncEvents.PORT_ERR, 1);

            assertThat(libc.poll(new int[] {fd}, io.rdmanode.posix.Posix.POLLIN, 20_000)[0]).as("one queued").isNotZero();
            assertThat(c.asyncEvent()).isEqualTo(new AsyncEvent(1, AsyncEvents.PORT_ERR, 0));
            assertThat(libc.poll(new int[] {fd}, io.rdmanode.posix.Posix.POLLIN, 0)[0]).as("taken").isZero();
        } finally {
            libc.close(fd);
        }
    }

    @Test
    void a_tenant_that_takes_none_has_at_most_256_queued_and_the_rest_counted() throws Exception {
        for (int i = 0; i < AsyncEvents.MAX_QUEUED + 10; i++) {
            dev.raise(AsyncEvents.PORT_ERR, 1);
        }
        await().atMost(WAIT).until(() -> dev.acked.size() == AsyncEvents.MAX_QUEUED + 10);

        assertThat(c.asyncEvents()).hasSize(AsyncEvents.MAX_QUEUED);
        assertThat(fx.router.stats().asyncEventsDropped()).isEqualTo(10);
    }

    private Process child() throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
                System.getProperty("java.class.path"), TenantProcess.class.getName(), "async",
                fx.server.socket().toString(), fx.shm.toString()));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        children.add(p);
        return p;
    }
}
