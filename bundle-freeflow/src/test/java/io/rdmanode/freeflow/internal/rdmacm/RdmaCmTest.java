// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.rdmacm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.freeflow.internal.wire.Errno;
import io.rdmanode.freeflow.internal.wire.Func;
import io.rdmanode.freeflow.internal.wire.LayoutTable;
import io.rdmanode.freeflow.internal.wire.WireException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The CM service against a fake kernel: tenant isolation, bad input, events, reclamation. */
class RdmaCmTest {
    private final FakeUcma kernel = new FakeUcma();
    private final RdmaCm cm = new RdmaCm(kernel, () -> 4);
    private final Object alice = "alice";
    private final Object mallory = "mallory";
    private final IntPredicate noQps = q -> false;

    @AfterEach
    void close() {
        cm.close();
    }

    private static ByteBuffer body(int func, int channel) {
        ByteBuffer b = ByteBuffer.allocate(LayoutTable.standard().func(func).requestSize()).order(ByteOrder.LITTLE_ENDIAN);
        return b.putInt(0, channel);
    }

    private ByteBuffer call(Object owner, int func, ByteBuffer body) {
        return cm.execute(owner, noQps, func, body, LayoutTable.standard().func(func).response().size());
    }

    private int createId(Object owner, CmChannel ch) {
        return call(owner, Func.CM_CREATE_ID, body(Func.CM_CREATE_ID, ch.number()).putLong(16, 0x99)).getInt(4);
    }

    private static int errno(Runnable r) {
        try {
            r.run();
        } catch (WireException e) {
            return e.errno();
        }
        return 0;
    }

    @Test
    void a_channel_is_a_kernel_file_of_its_own_and_an_eventfd_for_the_client() {
        CmChannel a = cm.createChannel(alice);
        CmChannel b = cm.createChannel(alice);
        assertThat(a.kernelFd).isNotEqualTo(b.kernelFd);
        assertThat(a.eventFd()).isNotEqualTo(b.eventFd());
        assertThat(a.number()).as("numbered from 1 for the client").isEqualTo(1);
        assertThat(b.number()).isEqualTo(2);
        int id = createId(alice, a);
        assertThat(id).isPositive();
        assertThat(kernel.written.get(kernel.written.size() - 1).fd()).isEqualTo(a.kernelFd);
    }

    @Test
    void a_client_holds_objects_while_it_has_an_event_channel() {
        assertThat(cm.holds(alice)).isFalse();
        CmChannel a = cm.createChannel(alice);
        assertThat(cm.holds(alice)).as("what keeps its quiet connections from the idle timeout").isTrue();
        assertThat(cm.holds(mallory)).isFalse();
        cm.destroyChannel(alice, a.number());
        assertThat(cm.holds(alice)).isFalse();
        cm.createChannel(alice);
        cm.reclaim(alice);
        assertThat(cm.holds(alice)).isFalse();
    }

    @Test
    void a_clients_figures_count_its_ids_untaken_events_connects_accepts_rejects_and_errors() {
        assertThat(cm.figures(alice)).isEqualTo(CmCounts.Client.NONE);
        CmChannel a = cm.createChannel(alice);
        int id = createId(alice, a);
        ByteBuffer connect = body(Func.CM_CONNECT, a.number()).putInt(12, 0x1234).putInt(284, id);
        assertThat(errno(() -> cm.execute(alice, q -> false, Func.CM_CONNECT, connect, 4))).isEqualTo(Errno.EACCES);
        cm.execute(alice, q -> q == 0x1234, Func.CM_CONNECT, connect, 4);
        kernel.event(a.kernelFd, 0x99, id, CmCounts.REJECTED);
        kernel.event(a.kernelFd, 0x99, id, CmCounts.UNREACHABLE);
        kernel.event(a.kernelFd, 0x99, 42, RdmaCm.CONNECT_REQUEST);
        cm.drain(a);
        call(alice, Func.CM_ACCEPT, body(Func.CM_ACCEPT, a.number()).putInt(296, 42));
        assertThat(errno(() -> cm.nextEvent(alice, 77, null))).isEqualTo(RdmaCm.EBADF);

        assertThat(cm.figures(alice)).as("ids: its own and the request's; 3 events fetched, none taken")
                .isEqualTo(new CmCounts.Client(1, 2, 3, 1, 1, 1, 3));
        assertThat(cm.figures(mallory)).isEqualTo(CmCounts.Client.NONE);
        assertThat(cm.totals()).isEqualTo(new CmCounts.Totals(1, 1, 1, 2, 1));
        cm.reclaim(alice);
        assertThat(cm.figures(alice)).as("a client's figures end with it").isEqualTo(CmCounts.Client.NONE);
        assertThat(cm.totals()).as("the router's stay").isEqualTo(new CmCounts.Totals(1, 1, 1, 2, 1));
    }

    @Test
    void another_tenants_channel_is_refused_and_the_kernel_sees_nothing() {
        CmChannel a = cm.createChannel(alice);
        int id = createId(alice, a);
        int before = kernel.written.size();
        assertThat(errno(() -> createId(mallory, a))).isEqualTo(RdmaCm.EBADF);
        ByteBuffer listen = body(Func.CM_LISTEN, a.number()).putInt(12, id);
        assertThat(errno(() -> call(mallory, Func.CM_LISTEN, listen))).isEqualTo(RdmaCm.EBADF);
        assertThat(errno(() -> cm.nextEvent(mallory, a.number(), null))).isEqualTo(RdmaCm.EBADF);
        assertThat(errno(() -> cm.destroyChannel(mallory, a.number()))).isEqualTo(RdmaCm.EBADF);
        assertThat(errno(() -> call(alice, Func.CM_LISTEN, body(Func.CM_LISTEN, 12345)))).isEqualTo(RdmaCm.EBADF);
        assertThat(kernel.written).hasSize(before);
        // numbers are per tenant: mallory's own channel 1 is hers, alice's ids are not on it
        CmChannel m = cm.createChannel(mallory);
        assertThat(m.number()).isEqualTo(a.number());
        assertThat(errno(() -> call(mallory, Func.CM_LISTEN, listen))).isEqualTo(Errno.ENOENT);
        createId(mallory, m);
        assertThat(kernel.written.get(kernel.written.size() - 1).fd()).isEqualTo(m.kernelFd);
    }

    @Test
    void a_destroyed_channels_number_is_given_again_lowest_first() {
        CmChannel a = cm.createChannel(alice);
        CmChannel b = cm.createChannel(alice);
        cm.destroyChannel(alice, a.number());
        assertThat(cm.createChannel(alice).number()).isEqualTo(1);
        assertThat(cm.createChannel(alice).number()).isEqualTo(3);
        assertThat(b.number()).isEqualTo(2);
    }

    @Test
    void a_cm_id_not_on_the_channel_is_refused() {
        CmChannel a = cm.createChannel(alice);
        CmChannel other = cm.createChannel(alice);
        int id = createId(alice, other);
        ByteBuffer listen = body(Func.CM_LISTEN, a.number()).putInt(12, id);
        assertThat(errno(() -> call(alice, Func.CM_LISTEN, listen))).isEqualTo(Errno.ENOENT);
        ByteBuffer destroy = body(Func.CM_DESTROY_ID, a.number()).putInt(24, 777);
        assertThat(errno(() -> call(alice, Func.CM_DESTROY_ID, destroy))).isEqualTo(Errno.ENOENT);
    }

    @Test
    void connect_and_accept_may_name_only_the_callers_qps() {
        CmChannel a = cm.createChannel(alice);
        int id = createId(alice, a);
        ByteBuffer connect = body(Func.CM_CONNECT, a.number()).putInt(12, 0x1234).putInt(284, id);
        int before = kernel.written.size();
        assertThat(errno(() -> cm.execute(alice, q -> q == 0x99, Func.CM_CONNECT, connect, 4))).isEqualTo(Errno.EACCES);
        ByteBuffer accept = body(Func.CM_ACCEPT, a.number()).putInt(24, 0x1234).putInt(296, id);
        assertThat(errno(() -> cm.execute(alice, q -> q == 0x99, Func.CM_ACCEPT, accept, 4))).isEqualTo(Errno.EACCES);
        assertThat(kernel.written).hasSize(before);
        cm.execute(alice, q -> q == 0x1234, Func.CM_CONNECT, connect, 4);
        assertThat(kernel.written).hasSize(before + 1);
    }

    @Test
    void bind_and_resolve_addresses_go_through_the_overlay_map() {
        cm.addressMap(AddressMap.parse(new String[] {"10.44.0.1=192.168.2.13", "10.44.0.2=192.168.2.15"}));
        CmChannel a = cm.createChannel(alice);
        int id = createId(alice, a);
        ByteBuffer bind = body(Func.CM_BIND_IP, a.number()).putShort(24, (short) 2).put(28, new byte[] {10, 44, 0, 1})
                .putInt(52, id);
        call(alice, Func.CM_BIND_IP, bind);
        ByteBuffer k = kernel.written.get(kernel.written.size() - 1).buffer();
        assertThat(new byte[] {k.get(20), k.get(21), k.get(22), k.get(23)}).containsExactly(192, 168, 2, 13);
        ByteBuffer resolve = body(Func.CM_RESOLVE_ADDR, a.number()).putInt(16, id).putShort(24, (short) 16)
                .putShort(26, (short) 16).putShort(160, (short) 2).put(164, new byte[] {10, 44, 0, 2});
        call(alice, Func.CM_RESOLVE_ADDR, resolve);
        k = kernel.written.get(kernel.written.size() - 1).buffer();
        assertThat(new byte[] {k.get(156), k.get(157), k.get(158), k.get(159)}).containsExactly(192, 168, 2, 15);
    }

    @Test
    void bind_of_an_overlay_address_mapped_to_ipv6_reaches_the_kernel_as_sockaddr_in6() {
        cm.addressMap(AddressMap.parse(new String[] {"10.44.0.1=fe80::5486:acff:fe31:ad9e%7"}));
        CmChannel a = cm.createChannel(alice);
        int id = createId(alice, a);
        // the genuine rdma_bind_addr2 (AF_IB supported): CM_BIND {id, addr_size 16, sockaddr_in 10.44.0.1:7175}
        ByteBuffer bind = body(Func.CM_BIND, a.number()).putInt(16, id).putShort(20, (short) 16)
                .putShort(24, (short) 2).put(26, (byte) 0x1c).put(27, (byte) 0x07).put(28, new byte[] {10, 44, 0, 1});
        call(alice, Func.CM_BIND, bind);
        ByteBuffer k = kernel.written.get(kernel.written.size() - 1).buffer();
        assertThat(k.getShort(12)).as("addr_size").isEqualTo((short) 28);
        assertThat(k.getShort(16)).as("AF_INET6").isEqualTo((short) 10);
        assertThat(k.get(24)).isEqualTo((byte) 0xfe);
        assertThat(k.getInt(40)).as("scope id").isEqualTo(7);
    }

    @Test
    void kernel_refusals_pass_with_their_errno_and_bad_option_lengths_never_reach_it() {
        CmChannel a = cm.createChannel(alice);
        int id = createId(alice, a);
        kernel.answer = (fd, c) -> c.getInt(0) == UcmaCommand.RESOLVE_ROUTE ? 110 : null;
        ByteBuffer route = body(Func.CM_RESOLVE_ROUTE, a.number()).putInt(12, id);
        assertThat(errno(() -> call(alice, Func.CM_RESOLVE_ROUTE, route))).isEqualTo(110);
        ByteBuffer opt = body(Func.CM_SET_OPTION, a.number()).putInt(24, id).putInt(36, 101);
        int before = kernel.written.size();
        assertThat(errno(() -> call(alice, Func.CM_SET_OPTION, opt))).isEqualTo(Errno.EINVAL);
        opt.putInt(36, -1);
        assertThat(errno(() -> call(alice, Func.CM_SET_OPTION, opt))).isEqualTo(Errno.EINVAL);
        assertThat(kernel.written).hasSize(before);
    }

    @Test
    void channels_and_ids_are_capped() {
        for (int i = 0; i < 4; i++) {
            cm.createChannel(alice);
        }
        assertThat(errno(() -> cm.createChannel(alice))).isEqualTo(Errno.EMFILE);
        assertThat(cm.createChannel(mallory)).isNotNull();
        CmChannel m = cm.createChannel(mallory);
        for (int i = 0; i < RdmaCm.MAX_IDS; i++) {
            createId(mallory, m);
        }
        assertThat(errno(() -> createId(mallory, m))).isEqualTo(Errno.EMFILE);
    }

    @Test
    void an_event_goes_to_a_parked_wait_or_waits_counted_on_the_eventfd() {
        CmChannel a = cm.createChannel(alice);
        int listener = createId(alice, a);
        List<ByteBuffer> got = new ArrayList<>();
        Waiter w = new Waiter(got);
        assertThat(cm.nextEvent(alice, a.number(), w)).isNull();
        kernel.event(a.kernelFd, 0x99, 42, RdmaCm.CONNECT_REQUEST);
        cm.drain(a);
        assertThat(got).hasSize(1);
        assertThat(got.get(0).capacity()).isEqualTo(336);
        assertThat(got.get(0).getLong(8)).isEqualTo(0x99);
        assertThat(got.get(0).getInt(16)).isEqualTo(42);
        // the connection request's new id is the tenant's now: it may accept on it
        ByteBuffer accept = body(Func.CM_ACCEPT, a.number()).putInt(296, 42);
        call(alice, Func.CM_ACCEPT, accept);

        kernel.event(a.kernelFd, 0x99, listener, 9);      // nobody waits: queued, the eventfd counts it
        cm.drain(a);
        assertThat(kernel.counts.get(a.eventFd())).isEqualTo(1);
        ByteBuffer e = cm.nextEvent(alice, a.number(), new Waiter(got));
        assertThat(e.getInt(20)).isEqualTo(9);
        assertThat(kernel.counts.get(a.eventFd())).isZero();
    }

    @Test
    void events_a_client_does_not_take_are_queued_up_to_the_bound_and_the_rest_stay_in_the_kernel() {
        CmChannel a = cm.createChannel(alice);
        int listener = createId(alice, a);
        for (int i = 0; i < RdmaCm.MAX_QUEUED_EVENTS + 10; i++) {
            kernel.event(a.kernelFd, 0x99, listener, 9);
        }
        cm.drain(a);
        assertThat(a.events).hasSize(RdmaCm.MAX_QUEUED_EVENTS);
        assertThat(kernel.counts.get(a.eventFd())).isEqualTo(RdmaCm.MAX_QUEUED_EVENTS);

        assertThat(cm.nextEvent(alice, a.number(), new Waiter(new ArrayList<>()))).isNotNull();
        cm.drain(a);                                      // room for one more: one more fetched
        assertThat(a.events).hasSize(RdmaCm.MAX_QUEUED_EVENTS);
        for (int i = 0; i < RdmaCm.MAX_QUEUED_EVENTS + 9; i++) {
            assertThat(cm.nextEvent(alice, a.number(), new Waiter(new ArrayList<>()))).isNotNull();
            cm.drain(a);
        }
        assertThat(a.events).isEmpty();
        assertThat(kernel.counts.get(a.eventFd())).isZero();
    }

    @Test
    void destroying_an_id_does_not_count_events_the_client_never_got() {
        CmChannel a = cm.createChannel(alice);
        int id = createId(alice, a);
        kernel.event(a.kernelFd, 0x99, id, 1);
        kernel.event(a.kernelFd, 0x99, id, 3);
        cm.drain(a);                                      // two fetched, none taken
        kernel.eventsReported = 2;
        ByteBuffer rsp = call(alice, Func.CM_DESTROY_ID, body(Func.CM_DESTROY_ID, a.number()).putInt(24, id));
        assertThat(rsp.getInt(0)).isZero();
        assertThat(rsp.getInt(4)).as("events_reported the client must wait for").isZero();
        assertThat(a.events).isEmpty();
    }

    @Test
    void a_reclaimed_tenant_loses_its_files_and_its_parked_waits_end() {
        CmChannel a = cm.createChannel(alice);
        CmChannel b = cm.createChannel(mallory);
        Waiter w = new Waiter(new ArrayList<>());
        cm.nextEvent(alice, a.number(), w);
        assertThat(cm.reclaim(alice)).isEqualTo(1);
        assertThat(kernel.closed).contains(a.kernelFd, a.eventFd()).doesNotContain(b.kernelFd, b.eventFd());
        assertThat(w.abandoned).isTrue();
        assertThat(errno(() -> createId(alice, a))).isEqualTo(RdmaCm.EBADF);
        assertThat(cm.channels()).isEqualTo(1);
    }

    private static final class Waiter implements CmEventWaiter {
        final List<ByteBuffer> got;
        boolean abandoned;
        private boolean claimed;

        Waiter(List<ByteBuffer> got) {
            this.got = got;
        }

        @Override
        public boolean claim() {
            if (claimed) {
                return false;
            }
            claimed = true;
            return true;
        }

        @Override
        public void deliver(ByteBuffer answer) {
            got.add(answer);
        }

        @Override
        public void abandon() {
            abandoned = true;
        }
    }
}
