// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static io.rdmanode.freeflow.internal.router.VerbsVmProbe.ACCESS_ALL;
import static io.rdmanode.freeflow.internal.router.VerbsVmProbe.await;
import static io.rdmanode.freeflow.internal.router.VerbsVmProbe.check;
import static io.rdmanode.freeflow.internal.router.VerbsVmProbe.counters;
import static io.rdmanode.freeflow.internal.router.VerbsVmProbe.equal;
import static io.rdmanode.freeflow.internal.router.VerbsVmProbe.rdmaResources;

import io.rdmanode.freeflow.internal.mapping.MappingSettings;
import io.rdmanode.freeflow.internal.mapping.MrMappingService;
import io.rdmanode.freeflow.internal.rdmacm.AddressMap;
import io.rdmanode.freeflow.internal.verbs.LibibverbsDevice;
import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import io.rdmanode.freeflow.testclient.FfClient.Mr;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import io.rdmanode.freeflow.testclient.FfClient.Sg;
import io.rdmanode.freeflow.testclient.FfClient.Wc;
import io.rdmanode.freeflow.testclient.FfClient.Wr;
import io.rdmanode.freeflow.testclient.FfCmClient;
import io.rdmanode.freeflow.testclient.FfCmClient.Event;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The rdma_cm case of {@code FreeflowVerbsSoftRoceIT}, run by {@link VerbsVmProbe} in the VM: client A listens on the
 * overlay address 10.44.0.1 through router A (rxe0), client B resolves it and connects through router B (rxe1); each
 * router maps 10.44.0.1 to tb0's IPv6 link-local address scoped by its own netdev ({@code freeflow.addressMap}), as
 * for the genuine rping. The kernel's CM does the handshake between the devices' real QPs (moved by the clients with
 * INIT_QP_ATTR's attributes); the private data carries A's rkey and application address to B. Both clients then pause
 * past the routers' idle timeout, holding their objects, A's GET_EVENT parked; then a 4 KiB SEND A→B and a 4 KiB RDMA
 * WRITE B→A on the connected QPs, bytes compared; B disconnects, both see DISCONNECTED, everything is destroyed,
 * and the devices' kernel counts (cm_ids included) are what they were before. Prints {@code cm.*} lines.
 */
final class CmVmProbe {
    static final int PORT = 7471;
    static final int SIZE = 4096;
    static final long APP_A = 0x7f0002100000L;
    /**
     * The routers' idle timeout here: the clients pause three times as long holding their objects. 2 s, not 1: a
     * fresh CM connection waits for the other client's first calls, seconds apart in a VM under CI's load.
     */
    static final long IDLE_MS = 2_000;
    static final long EVENT_MS = 60_000;

    private CmVmProbe() {
    }

    static void run() throws Exception {
        Inet4Address overlay = (Inet4Address) InetAddress.getByName("10.44.0.1");
        String ll0 = InetAddress.getByAddress(VerbsVmProbe.gid("rxe0")).getHostAddress().replaceAll("%.*", "");
        MrMappingService mapA = MrMappingService.start(MappingSettings.of(new String[] {"127.0.0.2"},
                MappingSettings.GENUINE_PORT, "127.0.0.1", 2000, 5));
        MrMappingService mapB = MrMappingService.start(MappingSettings.of(new String[] {"127.0.0.1"},
                MappingSettings.GENUINE_PORT, "127.0.0.2", 2000, 5));
        ControlSettings control = new ControlSettings(8, 4096, 128, IDLE_MS, 5_000);
        try (RouterFixture ra = new RouterFixture(Limits.defaults(), PollerSettings.defaults(), control,
                LibibverbsDevice.open("libibverbs.so.1", "rxe0"), 0);
             RouterFixture rb = new RouterFixture(Limits.defaults(), PollerSettings.defaults(), control,
                     LibibverbsDevice.open("libibverbs.so.1", "rxe1"), 0)) {
            ra.router.mapping(Optional.of(mapA));
            rb.router.mapping(Optional.of(mapB));
            ra.router.addressMap(AddressMap.parse(new String[] {"10.44.0.1=" + ll0 + "%tb0"}));
            rb.router.addressMap(AddressMap.parse(new String[] {"10.44.0.1=" + ll0 + "%tb1"}));
            Map<String, String> rxe0Before = rdmaResources("rxe0");
            Map<String, String> rxe1Before = rdmaResources("rxe1");
            System.out.println("cm.rxe0.before=" + rxe0Before);
            System.out.println("cm.rxe1.before=" + rxe1Before);
            counters("cm.before");
            // The verbs clients first: a control connection that has said nothing for IDLE_MS is cut, and in a
            // loaded VM their set-up outlasted it between the CM client's connect and its first call (Broken pipe).
            FfClient va = ra.client();
            FfClient vb = rb.client();
            try (FfCmClient a = new FfCmClient(ra.server.socket(), 7); FfCmClient b = new FfCmClient(rb.server.socket(), 8)) {
                connectAndMove(ra, rb, va, vb, a, b, overlay);
            }
            counters("cm.after");
            System.out.println("cm.router.objects=" + (ra.router.tenantsHoldingObjects() + rb.router.tenantsHoldingObjects()));
            System.out.println("cm.router.channels=" + (ra.router.cm().channels() + rb.router.cm().channels()));
            Map<String, String> rxe0After = rdmaResources("rxe0");
            Map<String, String> rxe1After = rdmaResources("rxe1");
            System.out.println("cm.rxe0.after=" + rxe0After);
            System.out.println("cm.rxe1.after=" + rxe1After);
            System.out.println("cm.resources.restored=" + (rxe0After.equals(rxe0Before) && rxe1After.equals(rxe1Before)));
        } finally {
            mapA.close();
            mapB.close();
        }
    }

    private static void connectAndMove(RouterFixture ra, RouterFixture rb, FfClient va, FfClient vb, FfCmClient a,
                                       FfCmClient b, Inet4Address overlay) throws Exception {
        // A: listen on the overlay address
        int chA = a.createEventChannel();
        int listenId = a.createId(chA, 0xa1);
        a.bind(chA, listenId, overlay, PORT);
        a.listen(chA, listenId, 4);
        // B: resolve it, make its QP, connect with its QPN
        int chB = b.createEventChannel();
        int idB = b.createId(chB, 0xb1);
        b.resolveAddr(chB, idB, overlay, PORT, 5_000);
        expect(b.getEvent(chB, EVENT_MS), FfCmClient.ADDR_RESOLVED, "cm.b.addr");
        b.resolveRoute(chB, idB, 5_000);
        expect(b.getEvent(chB, EVENT_MS), FfCmClient.ROUTE_RESOLVED, "cm.b.route");
        int pdB = vb.allocPd();
        Cq cqB = vb.createCq(16);
        Qp qpB = vb.createQp(pdB, cqB, cqB, 8, 1);
        Mr mrB = vb.regMr(pdB, 2 * SIZE, ACCESS_ALL);
        FfCmClient.modifyQp(vb, qpB, b.initQpAttr(chB, idB, FfCmClient.IBV_QPS_INIT));
        check(vb.postRecv(qpB, 31, new Sg(0, SIZE, mrB.lkey()))[0] == 0, "post recv B");
        b.connect(chB, idB, qpB.qpn(), "from B".getBytes());

        // A: the request, its QP through INIT, RTR and RTS, accept with its rkey and application address
        Event req = expect(a.getEvent(chA, EVENT_MS), FfCmClient.CONNECT_REQUEST, "cm.a.request");
        System.out.println("cm.a.request.private=" + new String(req.privateData(), 0, 6));
        System.out.println("cm.a.request.qpn.is.b=" + (req.qpNum() == qpB.qpn()));
        int idA = req.id();
        int pdA = va.allocPd();
        Cq cqA = va.createCq(16);
        Qp qpA = va.createQp(pdA, cqA, cqA, 8, 1);
        Mr mrA = va.regMr(pdA, 2 * SIZE, ACCESS_ALL);
        check(va.regMrMapping(mrA.lkey(), APP_A) == 0, "REG_MR_MAPPING A");
        for (int state : new int[] {FfCmClient.IBV_QPS_INIT, FfCmClient.IBV_QPS_RTR, FfCmClient.IBV_QPS_RTS}) {
            FfCmClient.modifyQp(va, qpA, a.initQpAttr(chA, idA, state));
        }
        byte[] keys = FfClient.buf(12).putInt(0, mrA.rkey()).putLong(4, APP_A).array();
        a.accept(chA, idA, 0xa2, qpA.qpn(), keys);

        // B: the answer, its QP through RTR and RTS, then the RTU
        Event rsp = expect(b.getEvent(chB, EVENT_MS), FfCmClient.CONNECT_RESPONSE, "cm.b.response");
        ByteBuffer got = FfClient.buf(12).put(0, rsp.privateData(), 0, 12);
        int rkeyA = got.getInt(0);
        long appA = got.getLong(4);
        System.out.println("cm.b.response.private.ok=" + (rkeyA == mrA.rkey() && appA == APP_A));
        System.out.println("cm.b.response.qpn.is.a=" + (rsp.qpNum() == qpA.qpn()));
        FfCmClient.modifyQp(vb, qpB, b.initQpAttr(chB, idB, FfCmClient.IBV_QPS_RTR));
        FfCmClient.modifyQp(vb, qpB, b.initQpAttr(chB, idB, FfCmClient.IBV_QPS_RTS));
        b.processConnResp(chB, idB);
        expect(a.getEvent(chA, EVENT_MS), FfCmClient.ESTABLISHED, "cm.a.established");
        System.out.println("cm.established=true");

        // Idle: A parks its next GET_EVENT, both hold their objects and say nothing for three idle timeouts; their
        // kept control connections must still be the router's afterwards.
        a.sendGetEvent(chA);
        long cutsBefore = ra.server.idleCuts() + rb.server.idleCuts();
        Thread.sleep(3 * IDLE_MS);

        // SEND 4 KiB A -> B, then RDMA WRITE 4 KiB B -> A at A's application address (+ 4 KiB)
        for (int i = 0; i < SIZE; i++) {
            mrA.buf().put(i, (byte) (i * 13 + 1));
            mrB.buf().put(SIZE + i, (byte) (i * 5 + 9));
        }
        check(va.postSend(qpA, List.of(Wr.send(41, new Sg(0, SIZE, mrA.lkey()))))[0] == 0, "post send A");
        List<Wc> sent = await(va, cqA, 1);
        List<Wc> recv = await(vb, cqB, 1);
        System.out.println("cm.send.ok=" + (sent.size() == 1 && sent.get(0).status() == 0 && recv.size() == 1
                && recv.get(0).status() == 0 && recv.get(0).byteLen() == SIZE && recv.get(0).wrId() == 31));
        System.out.println("cm.send.bytes.equal=" + equal(mrA.buf(), 0, mrB.buf(), 0, SIZE));
        check(vb.postSend(qpB, List.of(new Wr(42, 0, 2, 0, appA + SIZE, rkeyA, new Sg(SIZE, SIZE, mrB.lkey()))))[0] == 0,
                "post write B");
        List<Wc> wrote = await(vb, cqB, 1);
        // What B's router knew of A's MR and what the device answered: the write failed once in ~6 VM runs.
        System.out.println("cm.write.mapping.b.knows.a=" + rb.router.mapping().map(m -> m.table().get(rkeyA).isPresent()));
        System.out.println("cm.write.wc=" + wrote);
        System.out.println("cm.write.ok=" + (wrote.size() == 1 && wrote.get(0).status() == 0 && wrote.get(0).wrId() == 42));
        System.out.println("cm.write.bytes.equal=" + equal(mrB.buf(), SIZE, mrA.buf(), SIZE, SIZE));
        System.out.println("cm.idle.cuts=" + (ra.server.idleCuts() + rb.server.idleCuts() - cutsBefore));

        // What the routers report of it while connected (/status, metrics)
        System.out.println("cm.figures.a=" + cmOf(ra));
        System.out.println("cm.figures.b=" + cmOf(rb));
        System.out.println("cm.totals.a=" + ra.router.cmTotals());
        System.out.println("cm.totals.b=" + rb.router.cmTotals());

        // B disconnects: A's parked GET_EVENT gets DISCONNECTED; A's own disconnect answers B's request (the
        // kernel's DREP, as rping's server does), and B gets DISCONNECTED
        b.disconnect(chB, idB);
        expect(a.readEvent(chA, EVENT_MS), FfCmClient.DISCONNECTED, "cm.a.disconnected");
        a.disconnect(chA, idA);
        expect(b.getEvent(chB, EVENT_MS), FfCmClient.DISCONNECTED, "cm.b.disconnected");

        check(va.ret(FfClient.DESTROY_QP, qpA.handle()) == 0, "destroy QP A");
        check(vb.ret(FfClient.DESTROY_QP, qpB.handle()) == 0, "destroy QP B");
        a.destroyId(chA, idA);
        a.destroyId(chA, listenId);
        b.destroyId(chB, idB);
        a.destroyEventChannel(chA);
        b.destroyEventChannel(chB);
        check(va.ret(FfClient.DEREG_MR, mrA.handle()) == 0 && vb.ret(FfClient.DEREG_MR, mrB.handle()) == 0, "dereg MRs");
        check(va.ret(FfClient.DESTROY_CQ, cqA.handle()) == 0 && vb.ret(FfClient.DESTROY_CQ, cqB.handle()) == 0,
                "destroy CQs");
        check(va.ret(FfClient.DEALLOC_PD, pdA) == 0 && vb.ret(FfClient.DEALLOC_PD, pdB) == 0, "dealloc PDs");
        System.out.println("cm.destroyed=true");
    }

    /** The rdma_cm figures of the router's one tenant (this JVM). */
    private static String cmOf(RouterFixture r) {
        return r.router.tenants().stream().map(t -> t.cm().toString()).reduce((x, y) -> x + " " + y).orElse("none");
    }

    private static Event expect(Event e, int type, String key) {
        System.out.println(key + "=" + e.event() + " status=" + e.status());
        check(e.event() == type && e.status() == 0, key + " (event " + type + ")");
        return e;
    }
}
