// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static io.rdmanode.freeflow.internal.verbs.NativeLayout.AH_DGID;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.AH_IS_GLOBAL;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.AH_PORT_NUM;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.AH_SGID_INDEX;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_ACCESS_FLAGS;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_AH_DGID;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_AH_HOP_LIMIT;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_AH_IS_GLOBAL;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_AH_PORT_NUM;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_AH_SGID_INDEX;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_DEST_QP_NUM;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_MAX_DEST_RD_ATOMIC;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_MAX_RD_ATOMIC;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_MIN_RNR_TIMER;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_PATH_MTU;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_PORT_NUM;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_QKEY;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_QP_STATE;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_RETRY_CNT;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_RNR_RETRY;
import static io.rdmanode.freeflow.internal.verbs.NativeLayout.ATTR_TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.freeflow.internal.router.FakeVerbsDevice.NativeWr;
import io.rdmanode.freeflow.internal.wire.Layout;
import io.rdmanode.freeflow.internal.wire.LayoutTable;
import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import io.rdmanode.freeflow.testclient.FfClient.Mr;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import io.rdmanode.freeflow.testclient.FfClient.Sg;
import io.rdmanode.freeflow.testclient.FfClient.Wc;
import io.rdmanode.freeflow.testclient.FfClient.Wr;
import io.rdmanode.freeflow.internal.mapping.MappingSettings;
import io.rdmanode.freeflow.internal.mapping.MrMappingDatagram;
import io.rdmanode.freeflow.internal.mapping.MrMappingService;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The verbs transport on the host, through the real socket and mailboxes, against {@link FakeVerbsDevice}: what it
 * hands the device (objects, MODIFY_QP attributes, WR lists with translated addresses and keys) and what it gives
 * the client back (the device's QPN and keys, its completions). The device itself runs in {@code FreeflowVerbsSoftRoceIT}.
 */
class VerbsTransportTest {
    static final int ACCESS_ALL = 1 | 2 | 4;
    FakeVerbsDevice dev;
    RouterFixture fx;
    FfClient c;
    int pd;
    Cq cq;
    Qp qp;
    Mr mr;

    @BeforeEach
    void given_a_router_on_a_device() throws Exception {
        dev = new FakeVerbsDevice(3);            // active MTU 1024
        fx = new RouterFixture(Limits.defaults(), PollerSettings.defaults(), ControlSettings.defaults(), dev, 1);
        c = fx.client();
        pd = c.allocPd();
        cq = c.createCq(16);
        qp = c.createQp(pd, cq, cq, 32, 4);
        mr = c.regMr(pd, 1 << 16, ACCESS_ALL);
    }

    @AfterEach
    void close() throws Exception {
        fx.close();
    }

    @Test
    void aGidNamesTheHostItCarriesAsAHostListCouldNameIt() throws Exception {
        byte[] roceV2OverIpv4 = java.util.HexFormat.of().parseHex("00000000000000000000ffff0a000102");
        byte[] linkLocal = java.util.HexFormat.of().parseHex("fe800000000000000211223344556677");
        assertThat(VerbsTransport.ipOf(roceV2OverIpv4)).isEqualTo(InetAddress.getByName("10.0.1.2"))
                .isInstanceOf(java.net.Inet4Address.class);
        assertThat(VerbsTransport.ipOf(linkLocal)).isEqualTo(InetAddress.getByName("fe80::211:2233:4455:6677"));
    }

    @Test
    void the_client_sees_the_device_qpn_and_keys_and_the_mr_is_the_routers_mapping_of_its_file() {
        assertThat(qp.qpn()).isEqualTo(0x00a100);
        assertThat(mr.lkey()).isEqualTo(0x1234);
        assertThat(mr.rkey()).isEqualTo(0x1234);
        assertThat(dev.calls).containsExactly("pd", "cq", "qp", "mr");
        assertThat(dev.regs).singleElement().satisfies(r -> {
            assertThat(r.length()).isEqualTo(1 << 16);
            assertThat(r.access()).isEqualTo(ACCESS_ALL);
            assertThat(r.pd()).isEqualTo(dev.live.keySet().stream().filter(h -> dev.live.get(h).equals("pd"))
                    .findFirst().orElseThrow());
        });
    }

    @Test
    void the_device_qp_is_created_with_the_clients_max_inline_data() throws Exception {
        // perftest's ib_send_lat asks 236 bytes and posts its 64 B sends with IBV_SEND_INLINE: a device QP created
        // without it (rxe: as much inline as its SGEs hold, 16 B per SGE) refuses them with EINVAL
        assertThat(c.createQp(pd, cq, cq, 8, 1, 2, null, 236)).isNotNull();

        assertThat(dev.inlineOfQp.values()).containsExactlyInAnyOrder(0, 236);
    }

    @Test
    void modify_passes_the_clients_attributes_with_a_global_address_and_the_mtu_capped_at_the_port() throws Exception {
        byte[] gid = new byte[16];
        gid[0] = (byte) 0xfe;
        gid[1] = (byte) 0x80;
        gid[15] = 7;
        c.connect(qp, 0x00b200, ACCESS_ALL, 12, 7, gid);

        assertThat(dev.modifies).hasSize(3);
        assertThat(dev.modifies.get(0).mask()).isEqualTo(1 | 8 | 16 | 32);
        ByteBuffer init = dev.modifies.get(0).attr();
        assertThat(init.getInt(ATTR_QP_STATE)).isEqualTo(1);
        assertThat(init.getInt(ATTR_ACCESS_FLAGS)).isEqualTo(ACCESS_ALL);
        assertThat(init.get(ATTR_PORT_NUM)).isEqualTo((byte) 1);
        FakeVerbsDevice.Modify rtr = dev.modifies.get(1);
        assertThat(rtr.mask()).isEqualTo(1 | 128 | 256 | 1048576 | 4096 | 131072 | 32768);
        ByteBuffer a = rtr.attr();
        assertThat(a.getInt(ATTR_QP_STATE)).isEqualTo(2);
        assertThat(a.getInt(ATTR_DEST_QP_NUM)).isEqualTo(0x00b200);
        assertThat(a.getInt(ATTR_PATH_MTU)).as("4096 asked, port active at 1024").isEqualTo(3);
        assertThat(a.get(ATTR_MIN_RNR_TIMER)).isEqualTo((byte) 12);
        assertThat(a.get(ATTR_MAX_DEST_RD_ATOMIC)).isEqualTo((byte) 1);
        byte[] dgid = new byte[16];
        a.get(ATTR_AH_DGID, dgid);
        assertThat(dgid).isEqualTo(gid);
        assertThat(a.get(ATTR_AH_IS_GLOBAL)).isEqualTo((byte) 1);
        assertThat(a.get(ATTR_AH_SGID_INDEX)).as("the router's GID index").isEqualTo((byte) 1);
        assertThat(a.get(ATTR_AH_HOP_LIMIT)).isEqualTo((byte) 64);
        assertThat(a.get(ATTR_AH_PORT_NUM)).isEqualTo((byte) 1);
        ByteBuffer rts = dev.modifies.get(2).attr();
        assertThat(rts.getInt(ATTR_QP_STATE)).isEqualTo(3);
        assertThat(rts.get(ATTR_RNR_RETRY)).isEqualTo((byte) 7);
        assertThat(rts.get(ATTR_RETRY_CNT)).isEqualTo((byte) 7);
        assertThat(rts.get(ATTR_TIMEOUT)).isEqualTo((byte) 14);
        assertThat(rts.get(ATTR_MAX_RD_ATOMIC)).isEqualTo((byte) 1);
    }

    @Test
    void posts_become_native_wr_lists_with_mr_offsets_as_mapped_addresses() throws Exception {
        c.connect(qp, 0x00b200, ACCESS_ALL, 12, 7, new byte[16]);
        long base = dev.regs.get(0).addr();
        long appBase = 0x7f5500000000L;
        assertThat(c.regMrMapping(mr.lkey(), appBase)).isZero();

        assertThat(c.postSend(qp, List.of(
                new Wr(21, 2, 2, 0, 0, 0, new Sg(100, 200, mr.lkey()), new Sg(4096, 8, mr.lkey())),
                new Wr(22, 1, 2, 0x5151, appBase + 8192, mr.rkey(), new Sg(0, 64, mr.lkey())),
                new Wr(23, 0, 0, 0, 0x12345678L, 0x9999, new Sg(64, 64, mr.lkey()))))).containsExactly(0, 0);

        assertThat(dev.sends).singleElement().satisfies(list -> assertThat(list).containsExactly(
                new NativeWr(21, 2, 2, 0, 0, 0, List.of(new FakeVerbsDevice.Sg(base + 100, 200, mr.lkey()),
                        new FakeVerbsDevice.Sg(base + 4096, 8, mr.lkey()))),
                new NativeWr(22, 1, 2, 0x5151, base + 8192, mr.rkey(),
                        List.of(new FakeVerbsDevice.Sg(base, 64, mr.lkey()))),
                new NativeWr(23, 0, 0, 0, 0x12345678L, 0x9999,
                        List.of(new FakeVerbsDevice.Sg(base + 64, 64, mr.lkey())))));

        assertThat(c.postRecv(qp, 31, new Sg(1024, 512, mr.lkey()))).containsExactly(0, 0);
        assertThat(dev.recvs).singleElement().satisfies(list -> assertThat(list).containsExactly(
                new NativeWr(31, -1, 0, 0, 0, 0, List.of(new FakeVerbsDevice.Sg(base + 1024, 512, mr.lkey())))));
    }

    @Test
    void an_rkey_of_a_peers_device_equal_to_one_of_ours_is_translated_with_the_peers_announcement() throws Exception {
        // rxe and mlx5 keys are an object index and one random byte: two hosts' MRs made in the same order share a
        // key now and then. A WRITE to the peer's MR translated as ours lands where the peer's NIC refuses it
        // (IBV_WC_REM_ACCESS_ERR, as FreeflowVerbsSoftRoceIT met once) or at the wrong offset of the peer's MR.
        InetAddress here = InetAddress.getByName("127.0.0.7");
        InetAddress peerHost = InetAddress.getByName("127.0.0.8");
        int port;
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(here, 0))) {
            port = probe.getLocalPort();
        }
        try (MrMappingService ours = MrMappingService.start(new MappingSettings(List.of(peerHost), port, here, 200, 5));
             MrMappingService peer = MrMappingService.start(new MappingSettings(List.of(here), port, peerHost, 200, 5))) {
            fx.router.mapping(Optional.of(ours));
            dev.gid = gid(0x01);
            long base = dev.regs.get(0).addr();
            long appBase = 0x7f5500000000L;
            assertThat(c.regMrMapping(mr.lkey(), appBase)).isZero();
            long peerApp = 0x7f0000100000L;
            long peerMapping = 0x7e0000500000L;
            assertThat(peer.announce(new MrMappingDatagram(mr.rkey(), peerApp, peerMapping)).complete()).isTrue();
            Qp loopback = c.createQp(pd, cq, cq, 32, 4);
            c.connect(qp, 0x00b200, ACCESS_ALL, 12, 7, gid(0x02));
            c.connect(loopback, qp.qpn(), ACCESS_ALL, 12, 7, gid(0x01));

            assertThat(c.postSend(qp, List.of(new Wr(41, 0, 2, 0, peerApp + 64, mr.rkey(), new Sg(0, 64, mr.lkey())))))
                    .containsExactly(0, 0);
            assertThat(c.postSend(loopback, List.of(new Wr(42, 4, 2, 0, appBase + 64, mr.rkey(),
                    new Sg(128, 64, mr.lkey()))))).containsExactly(0, 0);

            assertThat(dev.sends).extracting(list -> list.get(0).remoteAddr())
                    .as("towards the peer: its announcement; towards this port: this router's MR")
                    .containsExactly(peerMapping + 64, base + 64);
        }
    }

    @Test
    void a_key_two_peers_announced_is_translated_with_the_announcement_of_the_host_the_qps_gid_names() throws Exception {
        // RoCE v2 over IPv4: the destination GID is ::ffff:<peer's address>; with the hosts listed by those addresses
        // the router knows whose MR an rkey names, as the genuine routers (one entry per rkey, the last wins) do not.
        InetAddress here = InetAddress.getByName("127.0.0.10");
        InetAddress p1 = InetAddress.getByName("127.0.0.11");
        InetAddress p2 = InetAddress.getByName("127.0.0.12");
        int port;
        try (DatagramSocket probe = new DatagramSocket(new InetSocketAddress(here, 0))) {
            port = probe.getLocalPort();
        }
        try (MrMappingService ours = MrMappingService.start(new MappingSettings(List.of(p1, p2), port, here, 200, 5));
             MrMappingService one = MrMappingService.start(new MappingSettings(List.of(here), port, p1, 200, 5));
             MrMappingService two = MrMappingService.start(new MappingSettings(List.of(here), port, p2, 200, 5))) {
            fx.router.mapping(Optional.of(ours));
            long app = 0x7f0000100000L;
            assertThat(two.announce(new MrMappingDatagram(0x4444, app, 0x7d0000900000L)).complete()).isTrue();
            assertThat(one.announce(new MrMappingDatagram(0x4444, app, 0x7e0000500000L)).complete()).isTrue();
            Qp towardsTwo = c.createQp(pd, cq, cq, 32, 4);
            c.connect(towardsTwo, 0x00b200, ACCESS_ALL, 12, 7, ipv4Gid(p2));
            c.connect(qp, 0x00b200, ACCESS_ALL, 12, 7, gid(0x02));

            assertThat(c.postSend(towardsTwo, List.of(new Wr(51, 0, 2, 0, app + 64, 0x4444,
                    new Sg(0, 64, mr.lkey()))))).containsExactly(0, 0);
            assertThat(c.postSend(qp, List.of(new Wr(52, 0, 2, 0, app + 64, 0x4444,
                    new Sg(0, 64, mr.lkey()))))).containsExactly(0, 0);

            assertThat(dev.sends).extracting(list -> list.get(0).remoteAddr())
                    .as("towards ::ffff:127.0.0.12: its announcement; a link-local GID names no host: left as given")
                    .containsExactly(0x7d0000900040L, app + 64);
            assertThat(ours.figures().ambiguous()).isEqualTo(1);
        }
    }

    private static byte[] ipv4Gid(InetAddress v4) {
        byte[] g = new byte[16];
        g[10] = (byte) 0xff;
        g[11] = (byte) 0xff;
        System.arraycopy(v4.getAddress(), 0, g, 12, 4);
        return g;
    }

    /** A GID of fe80::/64 ending in {@code last}. */
    private static byte[] gid(int last) {
        byte[] g = new byte[16];
        g[0] = (byte) 0xfe;
        g[1] = (byte) 0x80;
        g[15] = (byte) last;
        return g;
    }

    @Test
    void a_wr_naming_memory_outside_the_tenants_mrs_is_refused_before_the_device_sees_it() throws Exception {
        c.connect(qp, 0x00b200, ACCESS_ALL, 12, 7, new byte[16]);
        assertThat(c.postSend(qp, List.of(Wr.send(1, new Sg(0, 8, mr.lkey())),
                Wr.send(2, new Sg((1 << 16) - 4, 8, mr.lkey()))))).containsExactly(22, 2);
        assertThat(c.postSend(qp, List.of(Wr.send(3, new Sg(0, 8, mr.lkey() + 1))))).containsExactly(22, 1);
        assertThat(c.postRecv(qp, 4, new Sg(-1, 8, mr.lkey()))).containsExactly(22, 1);

        assertThat(dev.sends).isEmpty();
        assertThat(dev.recvs).isEmpty();
    }

    @Test
    void device_completions_reach_the_clients_cq_in_ibv_wc_layout() throws Exception {
        c.connect(qp, 0x00b200, ACCESS_ALL, 12, 7, new byte[16]);
        long devCq = dev.cqOfQp.values().iterator().next();
        dev.complete(devCq, 21, 0, 0, 4096, qp.qpn());
        dev.complete(devCq, 22, 12, 1, 0, qp.qpn());

        assertThat(c.await(cq, 2)).containsExactly(new Wc(21, 0, 0, 4096, 0, qp.qpn(), 0, 0),
                new Wc(22, 12, 1, 0, 0, qp.qpn(), 0, 0));
        assertThat(fx.router.stats().errorCompletions.sum()).isEqualTo(1);
    }

    @Test
    void query_dev_answers_the_lower_of_the_routers_limits_and_the_devices() throws Exception {
        Layout l = LayoutTable.struct("device_attr");
        ByteBuffer d = c.call(FfClient.QUERY_DEV, null, l.size());
        Limits own = Limits.defaults();

        assertThat(d.getInt(l.off("max_qp"))).as("device 100 < limit " + own.maxQps()).isEqualTo(100);
        assertThat(d.getInt(l.off("max_sge"))).as("device 8 < limit " + own.maxSge()).isEqualTo(8);
        assertThat(d.getInt(l.off("max_cqe"))).as("device 4096 < limit " + own.maxCqe()).isEqualTo(4096);
        assertThat(d.getInt(l.off("max_srq"))).isEqualTo(50);
        assertThat(d.getInt(l.off("max_qp_rd_atom"))).isEqualTo(4);
        assertThat(d.getInt(l.off("max_qp_wr"))).as("the limit, below the device's").isEqualTo(own.maxQpWr());
        assertThat(d.getInt(l.off("max_srq_wr"))).isEqualTo(own.maxQpWr());
        assertThat(d.getInt(l.off("max_cq"))).isEqualTo(own.maxCqs());
        assertThat(d.getInt(l.off("max_mr"))).isEqualTo(own.maxMrs());
        assertThat(d.getInt(l.off("max_pd"))).isEqualTo(own.maxPds());
        assertThat(d.getLong(l.off("max_mr_size"))).isEqualTo(own.maxMrBytes());
        assertThat(d.getInt(l.off("vendor_id"))).as("still the id libmlx4 matches").isEqualTo(0x02c9);
    }

    @Test
    void a_notify_arms_the_device_cq_and_its_signal_answers_the_parked_get_cq_event() throws Exception {
        int ch = c.createCompChannel();
        Cq evCq = c.createCq(16, ch);
        Qp evQp = c.createQp(pd, evCq, evCq, 8, 1);
        long devCq = dev.cqOfQp.get(dev.qpOfQpn.get(evQp.qpn()));
        assertThat(c.reqNotifyCq(evCq)).isZero();
        assertThat(dev.armedCqs).containsEntry(devCq, false);

        try (java.nio.channels.SocketChannel events = c.open()) {
            c.sendGetCqEvent(events, ch);
            dev.complete(devCq, 31, 0, 0, 64, evQp.qpn());

            assertThat(FfClient.readCqEvent(events)).as("cq handle, comp events").startsWith(evCq.handle(), 1);
        }
        assertThat(dev.cqAcks).singleElement().satisfies(a -> assertThat(a).containsExactly(devCq, 1));
        assertThat(c.await(evCq, 1)).extracting(Wc::wrId).containsExactly(31L);
    }

    @Test
    void a_solicited_only_notify_is_answered_by_the_solicited_completion_not_by_one_before_it() throws Exception {
        int ch = c.createCompChannel();
        Cq evCq = c.createCq(16, ch);
        Qp evQp = c.createQp(pd, evCq, evCq, 8, 1);
        long devCq = dev.cqOfQp.get(dev.qpOfQpn.get(evQp.qpn()));
        assertThat(c.reqNotifyCq(evCq, true)).isZero();
        assertThat(dev.armedCqs).containsEntry(devCq, true);

        try (java.nio.channels.SocketChannel events = c.open()) {
            c.sendGetCqEvent(events, ch);
            dev.complete(devCq, 41, 0, 128, 64, evQp.qpn());
            assertThat(c.await(evCq, 1)).as("polled, no event").extracting(Wc::wrId).containsExactly(41L);
            dev.completeSolicited(devCq, 42, 64, evQp.qpn());

            assertThat(FfClient.readCqEvent(events)).as("one event: the solicited completion's")
                    .startsWith(evCq.handle(), 1);
        }
        assertThat(c.await(evCq, 1)).extracting(Wc::wrId).containsExactly(42L);
    }

    @Test
    void destroying_everything_frees_every_device_object_and_closing_the_router_closes_the_device() throws Exception {
        assertThat(c.ret(FfClient.DESTROY_QP, qp.handle())).isZero();
        assertThat(c.ret(FfClient.DEREG_MR, mr.handle())).isZero();
        assertThat(c.ret(FfClient.DESTROY_CQ, cq.handle())).isZero();
        assertThat(dev.live).isEmpty();
        assertThat(dev.calls).endsWith("free qp", "free cq", "free mr", "free pd");
        fx.close();
        assertThat(dev.closed).isTrue();
        fx = new RouterFixture();
    }

    @Test
    void a_device_refusing_to_free_an_object_does_not_fail_the_clients_destroy() throws Exception {
        dev.refuseFrees = true;
        assertThat(c.ret(FfClient.DESTROY_QP, qp.handle())).isZero();
        assertThat(c.ret(FfClient.DEREG_MR, mr.handle())).isZero();
        assertThat(c.ret(FfClient.DESTROY_CQ, cq.handle())).isZero();
        assertThat(dev.calls).endsWith("refused free qp", "refused free cq", "refused free mr", "refused free pd");
        assertThat(fx.router.tenants()).singleElement().satisfies(t -> assertThat(t.qps()).isZero());
    }

    @Test
    void query_qp_answers_what_the_device_accepted() throws Exception {
        c.connect(qp, 0x00b200, ACCESS_ALL, 12, 7, new byte[16]);

        Layout rs = LayoutTable.struct("query_qp_rsp");
        ByteBuffer q = c.queryQp(qp);
        assertThat(q.getInt(rs.off("ret_errno"))).isZero();
        assertThat(q.get(rs.off("qp_state"))).isEqualTo((byte) 3);
        assertThat(q.get(rs.off("path_mtu"))).as("as capped for the device").isEqualTo((byte) 3);
        assertThat(q.getInt(rs.off("dest_qp_num"))).isEqualTo(0x00b200);
        assertThat(q.getInt(rs.off("qp_access_flags"))).isEqualTo(ACCESS_ALL);
        assertThat(q.get(rs.off("min_rnr_timer"))).isEqualTo((byte) 12);
        assertThat(q.get(rs.off("rnr_retry"))).isEqualTo((byte) 7);
    }

    @Test
    void a_uc_qp_is_a_device_uc_qp_connected_with_the_clients_uc_mask() throws Exception {
        Qp uc = c.createQp(pd, cq, cq, 8, 1, 3);
        assertThat(uc).isNotNull();
        long devQp = dev.live.entrySet().stream().filter(e -> e.getValue().equals("qp")).mapToLong(e -> e.getKey())
                .max().orElseThrow();
        assertThat(dev.createdQps.get(devQp)[1]).as("IBV_QPT_UC").isEqualTo(3);

        c.connectUc(uc, 0x00b300, ACCESS_ALL);
        assertThat(dev.modifies).extracting(FakeVerbsDevice.Modify::mask)
                .containsExactly(1 | 8 | 16 | 32, 1 | 128 | 256 | 1048576 | 4096, 1 | 65536);
        assertThat(c.postSend(uc, List.of(Wr.send(5, new Sg(0, 64, mr.lkey()))))).containsExactly(0, 0);
        assertThat(dev.sends).hasSize(1);

        assertThat(dev.live.values()).containsExactlyInAnyOrder("pd", "cq", "qp", "qp", "mr");
    }

    @Test
    void a_ud_send_names_the_device_ah_of_the_wr_and_the_remote_qpn_and_qkey() throws Exception {
        Qp ud = c.createQp(pd, cq, cq, 8, 1, 4);
        assertThat(ud).isNotNull();
        c.connectUd(ud, 0x11111111);
        assertThat(dev.modifies).extracting(FakeVerbsDevice.Modify::mask).containsExactly(1 | 16 | 32 | 64, 1, 1 | 65536);
        assertThat(dev.modifies.get(0).attr().getInt(ATTR_QKEY)).isEqualTo(0x11111111);
        byte[] gid = new byte[16];
        gid[0] = (byte) 0xfe;
        gid[15] = 9;
        int ah = c.createAh(pd, gid);
        assertThat(ah).isPositive();
        long devAh = dev.live.entrySet().stream().filter(e -> e.getValue().equals("ah")).mapToLong(e -> e.getKey())
                .findFirst().orElseThrow();
        ByteBuffer attr = dev.ahAttrs.get(devAh);
        byte[] dgid = new byte[16];
        attr.get(AH_DGID, dgid);
        assertThat(dgid).isEqualTo(gid);
        assertThat(attr.get(AH_IS_GLOBAL)).isEqualTo((byte) 1);
        assertThat(attr.get(AH_SGID_INDEX)).as("the router's GID index").isEqualTo((byte) 1);
        assertThat(attr.get(AH_PORT_NUM)).isEqualTo((byte) 1);
        long base = dev.regs.get(0).addr();

        assertThat(c.postSendUd(ud, List.of(new Wr(61, 2, 2, 0, 0, 0x00c400, new Sg(40, 256, mr.lkey()))),
                new int[] {ah}, 0x11111111)).containsExactly(0, 0);
        assertThat(dev.sends).singleElement().satisfies(list -> assertThat(list).containsExactly(
                new NativeWr(61, 2, 2, 0, devAh, 0x00c400, List.of(new FakeVerbsDevice.Sg(base + 40, 256, mr.lkey())))));
        assertThat(dev.qkeys).containsExactly(0x11111111);
        assertThat(c.postSendUd(ud, List.of(Wr.send(62, new Sg(0, 8, mr.lkey()))), new int[] {ah + 1}, 1))
                .as("no such AH").containsExactly(22, 1);
        assertThat(c.postSendUd(ud, List.of(new Wr(63, 0, 2, 0, 0, 0x00c400, new Sg(0, 8, mr.lkey()))),
                new int[] {ah}, 1)).as("RDMA WRITE on UD").containsExactly(22, 1);
        assertThat(dev.sends).hasSize(1);

        assertThat(c.ret(FfClient.DEALLOC_PD, pd)).as("in use").isEqualTo(16);
        assertThat(c.ret(FfClient.DESTROY_AH, ah)).isZero();
        assertThat(c.ret(FfClient.DESTROY_AH, ah)).as("twice").isEqualTo(22);
        assertThat(dev.calls).endsWith("free ah");
    }

    @Test
    void the_software_transport_refuses_ahs() throws Exception {
        try (RouterFixture sw = new RouterFixture()) {
            FfClient s = sw.client();
            assertThat(s.createAh(s.allocPd(), new byte[16])).isZero();
        }
    }

    @Test
    void an_srq_is_a_device_srq_whose_qps_take_their_receives_from_it() throws Exception {
        FfClient.Srq srq = c.createSrq(pd, 8, 2);
        Qp onSrq = c.createQp(pd, cq, cq, 8, 1, 2, srq);
        assertThat(onSrq).isNotNull();
        long devSrq = dev.live.entrySet().stream().filter(e -> e.getValue().equals("srq")).mapToLong(e -> e.getKey())
                .findFirst().orElseThrow();
        assertThat(dev.srqSizes.get(devSrq)).containsExactly(8, 2);
        long devQp = dev.createdQps.entrySet().stream().filter(e -> e.getValue()[0] == devSrq).mapToLong(e -> e.getKey())
                .findFirst().orElseThrow();
        assertThat(dev.createdQps.get(devQp)).as("srq, RC, no receive queue of its own").containsExactly(devSrq, 2, 0, 0);
        long base = dev.regs.get(0).addr();

        assertThat(c.postSrqRecv(srq, 41, new Sg(512, 256, mr.lkey()), new Sg(0, 8, mr.lkey()))).containsExactly(0, 0);
        assertThat(c.postSrqRecvSlow(srq, 42, new Sg(4096, 64, mr.lkey()))).containsExactly(0, 0);
        assertThat(dev.srqRecvs).containsExactly(
                List.of(new NativeWr(41, -1, 0, 0, 0, 0, List.of(new FakeVerbsDevice.Sg(base + 512, 256, mr.lkey()),
                        new FakeVerbsDevice.Sg(base, 8, mr.lkey())))),
                List.of(new NativeWr(42, -1, 0, 0, 0, 0, List.of(new FakeVerbsDevice.Sg(base + 4096, 64, mr.lkey())))));
        assertThat(c.postSrqRecv(srq, 43, new Sg(1 << 16, 8, mr.lkey()))).as("past the MR").containsExactly(22, 1);
        assertThat(c.postSrqRecv(srq, 44, new Sg(0, 8, mr.lkey()), new Sg(0, 8, mr.lkey()), new Sg(0, 8, mr.lkey())))
                .as("3 SGEs, max_sge 2").containsExactly(22, 1);
        assertThat(c.postRecv(onSrq, 45, new Sg(0, 8, mr.lkey()))).as("the QP's own receive queue").containsExactly(22, 1);
        assertThat(dev.srqRecvs).hasSize(2);
        assertThat(dev.recvs).isEmpty();

        assertThat(c.modifySrq(srq, 16, 0, 1)).isZero();
        assertThat(dev.srqSizes.get(devSrq)[0]).isEqualTo(16);

        assertThat(c.ret(FfClient.DESTROY_SRQ, srq.handle())).as("in use").isEqualTo(16);
        assertThat(c.ret(FfClient.DESTROY_QP, onSrq.handle())).isZero();
        assertThat(c.ret(FfClient.DESTROY_SRQ, srq.handle())).isZero();
        assertThat(dev.calls).endsWith("free qp", "free srq");
        assertThat(dev.live.values()).containsExactlyInAnyOrder("pd", "cq", "qp", "mr");
    }

    @Test
    void an_srq_the_device_refuses_leaves_no_handle_and_no_pd_behind() throws Exception {
        c.ret(FfClient.DESTROY_QP, qp.handle());
        c.ret(FfClient.DEREG_MR, mr.handle());
        assertThat(dev.live).isEmpty();
        dev.refuseSrqs = true;

        assertThat(c.createSrq(pd, 8, 1)).isNull();
        assertThat(dev.live).isEmpty();
        assertThat(fx.router.tenants()).singleElement().satisfies(t -> assertThat(t.srqs()).isZero());
    }
}
