// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.mapping.MappingSettings;
import io.rdmanode.freeflow.internal.mapping.MrMappingService;
import io.rdmanode.freeflow.internal.verbs.LibibverbsDevice;
import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import io.rdmanode.freeflow.testclient.FfClient.Mr;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import io.rdmanode.freeflow.testclient.FfClient.Sg;
import io.rdmanode.freeflow.testclient.FfClient.Wc;
import io.rdmanode.freeflow.testclient.FfClient.Wr;
import io.rdmanode.freeflow.internal.wire.Layout;
import io.rdmanode.freeflow.internal.wire.LayoutTable;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Runs inside the Soft-RoCE VM after {@code rxe-setup} (rxe0 and rxe1 on the two ends of a veth pair), for
 * {@code FreeflowVerbsSoftRoceIT}: two routers in this JVM, one with the verbs transport on rxe0 and one on rxe1,
 * each with the inter-host MR mapping towards the other (127.0.0.1 and 127.0.0.2, UDP 11232), and a clean-room
 * client on each. The clients create RC QPs, exchange QPNs and the devices' GIDs, and move 64 KiB with SEND/RECV
 * from A to B, 64 KiB with RDMA WRITE from B into A's MR, 4 KiB with WRITE_WITH_IMM from A into B's, and read 64 KiB
 * of B's MR with RDMA READ from A, then compare bytes; then two QPs of B on one SRQ receive four SENDs of two QPs
 * of A, a UC QP pair moves a SEND and an RDMA WRITE, and a UD QP pair a 1 KiB SEND through an AH. Prints {@code key=value} lines,
 * the rxe hw_counters before and after among them, and {@code done=true} last; anything unexpected is printed as
 * {@code failure=...}. Behaviour only, never timings (the VM emulates its CPU).
 */
public final class VerbsVmProbe {
    static final int ACCESS_ALL = 1 | 2 | 4;
    static final int SIZE = 64 * 1024;
    static final long APP_A = 0x7f0000100000L;
    static final long APP_B = 0x7f0000900000L;

    private VerbsVmProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("peer")) {
            peer();
            return;
        }
        try {
            run();
            CmVmProbe.run();
            peerLoss();
            System.out.println("done=true");
        } catch (Throwable t) {
            System.out.println("failure=" + t.toString().replace('\n', ' '));
            t.printStackTrace(System.out);
        }
        System.out.flush();
        System.exit(0);
    }

    static long counter(String dev, String name) throws Exception {
        return Long.parseLong(Files.readString(Path.of("/sys/class/infiniband", dev, "ports/1/hw_counters", name)).trim());
    }

    static byte[] gid(String dev) throws Exception {
        String text = Files.readString(Path.of("/sys/class/infiniband", dev, "ports/1/gids/0")).trim();
        return HexFormat.of().parseHex(text.replace(":", ""));
    }

    static void counters(String when) throws Exception {
        for (String dev : List.of("rxe0", "rxe1")) {
            for (String c : List.of("sent_pkts", "rcvd_pkts")) {
                System.out.println(when + "." + dev + "." + c + "=" + counter(dev, c));
            }
        }
    }

    private static void run() throws Exception {
        counters("before");
        MrMappingService mapA = MrMappingService.start(MappingSettings.of(new String[] {"127.0.0.2"},
                MappingSettings.GENUINE_PORT, "127.0.0.1", 2000, 5));
        MrMappingService mapB = MrMappingService.start(MappingSettings.of(new String[] {"127.0.0.1"},
                MappingSettings.GENUINE_PORT, "127.0.0.2", 2000, 5));
        try (RouterFixture ra = new RouterFixture(Limits.defaults(), PollerSettings.defaults(), ControlSettings.defaults(),
                LibibverbsDevice.open("libibverbs.so.1", "rxe0"), 0);
             RouterFixture rb = new RouterFixture(Limits.defaults(), PollerSettings.defaults(),
                     ControlSettings.defaults(), LibibverbsDevice.open("libibverbs.so.1", "rxe1"), 0)) {
            ra.router.mapping(Optional.of(mapA));
            rb.router.mapping(Optional.of(mapB));
            System.out.println("transport.a=" + ra.router.transport.getClass().getSimpleName());
            FfClient a = ra.client();
            FfClient b = rb.client();
            check(a.asyncFd()[0] == 0 && b.asyncFd()[0] == 0, "FFR_GET_ASYNC_FD");
            ByteBuffer port = a.call(FfClient.QUERY_PORT, FfClient.buf(1).put(0, (byte) 1), 48);
            System.out.println("port.a.state=" + port.getInt(0));
            System.out.println("port.a.active_mtu=" + port.getInt(8));
            Layout dl = LayoutTable.struct("device_attr");
            ByteBuffer qdev = a.call(FfClient.QUERY_DEV, null, dl.size());
            io.rdmanode.freeflow.internal.verbs.VerbsDevice.Attr rxe0 = ra.router.transport.deviceAttr().orElseThrow();
            Limits own = Limits.defaults();
            System.out.println("qdev.max_cqe=" + qdev.getInt(dl.off("max_cqe")) + " (rxe0 " + rxe0.maxCqe() + ", limit "
                    + own.maxCqe() + ")");
            System.out.println("qdev.max_qp.ok=" + (qdev.getInt(dl.off("max_qp")) == Math.min(own.maxQps(), rxe0.maxQp())));
            System.out.println("qdev.max_cqe.ok=" + (qdev.getInt(dl.off("max_cqe")) == Math.min(own.maxCqe(), rxe0.maxCqe())));
            System.out.println("qdev.max_srq_wr.ok="
                    + (qdev.getInt(dl.off("max_srq_wr")) == Math.min(own.maxQpWr(), rxe0.maxSrqWr())));

            int pdA = a.allocPd();
            int pdB = b.allocPd();
            Cq cqA = a.createCq(64);
            Cq cqB = b.createCq(64);
            Qp qpA = a.createQp(pdA, cqA, cqA, 16, 1);
            Qp qpB = b.createQp(pdB, cqB, cqB, 16, 1);
            Mr mrA = a.regMr(pdA, 3 * SIZE, ACCESS_ALL);
            Mr mrB = b.regMr(pdB, 3 * SIZE, ACCESS_ALL);
            System.out.println("qpn.a=" + qpA.qpn());
            System.out.println("qpn.b=" + qpB.qpn());
            System.out.println("mr.a.lkey=" + mrA.lkey() + " mr.a.rkey=" + mrA.rkey());
            // rxe's keys are the MR's index and a random byte: 1 run in 256 or so both devices hand out the same one
            System.out.println("mr.b.rkey=" + mrB.rkey() + (mrA.rkey() == mrB.rkey() ? " (equal to A's)" : ""));
            System.out.println("mr.keys.equal=" + (mrA.lkey() == mrA.rkey() && mrB.lkey() == mrB.rkey()));
            check(a.regMrMapping(mrA.lkey(), APP_A) == 0, "REG_MR_MAPPING A");
            check(b.regMrMapping(mrB.lkey(), APP_B) == 0, "REG_MR_MAPPING B");
            System.out.println("mapping.a.knows.b=" + mapA.table().get(mrB.rkey()).isPresent());
            System.out.println("mapping.b.knows.a=" + mapB.table().get(mrA.rkey()).isPresent());

            a.connect(qpA, qpB.qpn(), ACCESS_ALL, 12, 7, gid("rxe1"));
            b.connect(qpB, qpA.qpn(), ACCESS_ALL, 12, 7, gid("rxe0"));
            System.out.println("connected=true");

            // SEND/RECV of 64 KiB, A -> B
            for (int i = 0; i < SIZE; i++) {
                mrA.buf().put(i, (byte) (i * 7 + 3));
            }
            check(b.postRecv(qpB, 11, new Sg(0, SIZE, mrB.lkey()))[0] == 0, "post recv B");
            check(a.postSend(qpA, List.of(new Wr(21, 2, 2, 0, 0, 0, new Sg(0, SIZE, mrA.lkey()))))[0] == 0, "post send A");
            List<Wc> sent = await(a, cqA, 1);
            List<Wc> got = await(b, cqB, 1);
            System.out.println("send.wc=" + sent);
            System.out.println("recv.wc=" + got);
            System.out.println("send.ok=" + (sent.size() == 1 && sent.get(0).status() == 0 && sent.get(0).wrId() == 21));
            System.out.println("recv.ok=" + (got.size() == 1 && got.get(0).status() == 0 && got.get(0).wrId() == 11
                    && got.get(0).byteLen() == SIZE && got.get(0).opcode() == 128 && got.get(0).qpNum() == qpB.qpn()));
            System.out.println("send.bytes.equal=" + equal(mrA.buf(), 0, mrB.buf(), 0, SIZE));

            // RDMA WRITE of 64 KiB, B -> A's MR at A's application address + 64 KiB
            for (int i = 0; i < SIZE; i++) {
                mrB.buf().put(SIZE + i, (byte) (i * 13 + 1));
            }
            check(b.postSend(qpB, List.of(new Wr(31, 0, 2, 0, APP_A + SIZE, mrA.rkey(),
                    new Sg(SIZE, SIZE, mrB.lkey()))))[0] == 0, "post write B");
            List<Wc> wrote = await(b, cqB, 1);
            System.out.println("write.wc=" + wrote);
            System.out.println("write.ok=" + (wrote.size() == 1 && wrote.get(0).status() == 0 && wrote.get(0).opcode() == 1));
            System.out.println("write.bytes.equal=" + equal(mrB.buf(), SIZE, mrA.buf(), SIZE, SIZE));

            // RDMA WRITE_WITH_IMM of 4 KiB, A -> B's MR at B's application address + 64 KiB: B's receive gets the immediate
            for (int i = 0; i < 4096; i++) {
                mrA.buf().put(2 * SIZE + i, (byte) (i * 5 + 2));
            }
            check(b.postRecv(qpB, 12)[0] == 0, "post recv B (imm)");
            check(a.postSend(qpA, List.of(new Wr(22, 1, 2, 0x51525354, APP_B + SIZE, mrB.rkey(),
                    new Sg(2 * SIZE, 4096, mrA.lkey()))))[0] == 0, "post write imm A");
            List<Wc> immSent = await(a, cqA, 1);
            List<Wc> immGot = await(b, cqB, 1);
            System.out.println("writeimm.wc=" + immSent + " " + immGot);
            System.out.println("writeimm.ok=" + (immSent.size() == 1 && immSent.get(0).status() == 0
                    && immGot.size() == 1 && immGot.get(0).status() == 0 && immGot.get(0).opcode() == 129
                    && immGot.get(0).imm() == 0x51525354 && immGot.get(0).wrId() == 12));
            System.out.println("writeimm.bytes.equal=" + equal(mrA.buf(), 2 * SIZE, mrB.buf(), SIZE, 4096));

            // RDMA READ of 64 KiB: A reads B's first 64 KiB (the SEND's bytes) into its MR at 128 KiB
            check(a.postSend(qpA, List.of(new Wr(23, 4, 2, 0, APP_B, mrB.rkey(),
                    new Sg(2 * SIZE, SIZE, mrA.lkey()))))[0] == 0, "post read A");
            List<Wc> read = await(a, cqA, 1);
            System.out.println("read.wc=" + read);
            System.out.println("read.ok=" + (read.size() == 1 && read.get(0).status() == 0 && read.get(0).opcode() == 2
                    && read.get(0).byteLen() == SIZE));
            System.out.println("read.bytes.equal=" + equal(mrB.buf(), 0, mrA.buf(), 2 * SIZE, SIZE));

            bandwidth(a, b, qpA, qpB, cqA, cqB, mrA, mrB);
            srq(a, b, pdA, pdB, cqA, cqB, mrA, mrB);
            uc(a, b, pdA, pdB, cqA, cqB, mrA, mrB);
            ud(a, b, pdA, pdB, cqA, cqB, mrA, mrB);
            cqEvents(a, b, pdA, pdB, cqA, mrA, mrB);

            // A WRITE to an address outside the remote MR (last: it moves the QPs to ERR): the responder device refuses it
            check(b.postSend(qpB, List.of(new Wr(41, 0, 2, 0, APP_A + 5 * SIZE, mrA.rkey(),
                    new Sg(0, 64, mrB.lkey()))))[0] == 0, "post bad write B");
            List<Wc> bad = await(b, cqB, 1);
            System.out.println("badwrite.status=" + (bad.isEmpty() ? "none" : bad.get(0).status()));
            counters("after");

            check(a.ret(FfClient.DESTROY_QP, qpA.handle()) == 0, "destroy QP A");
            check(b.ret(FfClient.DESTROY_QP, qpB.handle()) == 0, "destroy QP B");
            check(a.ret(FfClient.DEREG_MR, mrA.handle()) == 0, "dereg MR A");
            check(b.ret(FfClient.DEREG_MR, mrB.handle()) == 0, "dereg MR B");
            check(a.ret(FfClient.DESTROY_CQ, cqA.handle()) == 0, "destroy CQ A");
            check(b.ret(FfClient.DESTROY_CQ, cqB.handle()) == 0, "destroy CQ B");
            System.out.println("destroyed=true");
            System.out.println("async.before.ports.a=" + events(a));
            System.out.println("async.before.ports.b=" + events(b));
            portEvents(a, b);
        } finally {
            mapA.close();
            mapB.close();
        }
    }

    /**
     * Issue 25's failure case: router B, with client B, in a JVM of its own (this class with {@code peer}), SIGKILLed
     * while client A streams 4 KiB SENDs to it over an RC QP on rxe0. The kernel destroys B's QP with the process, so
     * rxe0 retransmits to a QPN nobody answers: client A must see an error completion (IBV_WC_RETRY_EXC_ERR after
     * timeout 14 × retry_cnt 3, about 0.3 s; rxe retries for ever at retry_cnt 7, the clients' usual value) and no hang, its calls must keep answering, and once it has destroyed
     * its objects rxe0's kernel counts ({@code rdma resource show}) must be what they were before it connected, and
     * rxe1's what they were before router B started.
     */
    static void peerLoss() throws Exception {
        Map<String, String> rxe1Before = rdmaResources("rxe1");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process peer = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-Xmx128m", "-cp",
                System.getProperty("java.class.path"), VerbsVmProbe.class.getName(), "peer")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (RouterFixture ra = new RouterFixture(Limits.defaults(), PollerSettings.defaults(),
                ControlSettings.defaults(), LibibverbsDevice.open("libibverbs.so.1", "rxe0"), 0)) {
            Map<String, String> rxe0Before = rdmaResources("rxe0");
            System.out.println("loss.rxe0.before=" + rxe0Before);
            BufferedReader fromPeer = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
            PrintStream toPeer = new PrintStream(peer.getOutputStream(), true, StandardCharsets.UTF_8);
            FfClient a = ra.client();
            int pd = a.allocPd();
            Cq cq = a.createCq(64);
            Qp qp = a.createQp(pd, cq, cq, 16, 1);
            Mr mr = a.regMr(pd, SIZE, ACCESS_ALL);
            System.out.println("loss.rxe0.client=" + rdmaResources("rxe0"));
            int qpnB = Integer.parseInt(expect(fromPeer, "qpn="));
            // timeout 14 (67 ms) and retry_cnt 3: the retry-exceeded error after ~0.3 s (rxe never gives up at 7)
            a.connect(qp, qpnB, ACCESS_ALL, 12, 7, gid("rxe1"), 14, 3);
            toPeer.println(qp.qpn());
            expect(fromPeer, "ready");
            System.out.println("loss.peer.pid=" + peer.pid());

            // The transfer under way: 4 SENDs completed, 8 more in flight when router B dies.
            int len = 4096;
            for (int i = 0; i < 4; i++) {
                check(a.postSend(qp, List.of(Wr.send(500 + i, new Sg((long) i * len, len, mr.lkey()))))[0] == 0, "loss send");
            }
            List<Wc> first = await(a, cq, 4);
            System.out.println("loss.before.ok=" + (first.size() == 4 && first.stream().allMatch(wc -> wc.status() == 0)));
            for (int i = 0; i < 8; i++) {
                check(a.postSend(qp, List.of(Wr.send(600 + i, new Sg((long) i * len, len, mr.lkey()))))[0] == 0, "loss send");
            }
            peer.destroyForcibly(); // SIGKILL
            long killed = System.nanoTime();
            System.out.println("loss.peer.killed=" + peer.waitFor(10, TimeUnit.SECONDS));
            // Keep streaming, one SEND per round, until an error completion comes (or 30 s: the test's bound is tighter).
            Wc error = null;
            List<Wc> flushed = new ArrayList<>();
            int ok = 0;
            int posted = 8;
            List<Integer> postAnswers = new ArrayList<>();
            long end = killed + 30_000_000_000L;
            while (error == null && System.nanoTime() < end) {
                if (posted < 16) {
                    postAnswers.add(a.postSend(qp, List.of(Wr.send(600 + posted, new Sg(0, len, mr.lkey()))))[0]);
                    posted++;
                }
                for (Wc wc : a.pollCq(cq, 16)) {
                    if (error != null) {
                        flushed.add(wc);
                    } else if (wc.status() != 0) {
                        error = wc;
                    } else {
                        ok++;
                    }
                }
                Thread.sleep(5);
            }
            System.out.printf("loss.error.ms=%d%n", (System.nanoTime() - killed) / 1_000_000);
            System.out.println("loss.error.status=" + (error == null ? "none" : error.status()));
            System.out.println("loss.error.wc=" + error);
            System.out.println("loss.ok.after.kill=" + ok);
            System.out.println("loss.post.answers=" + postAnswers);
            // After the error: every call still answers, the rest of the posted WRs flush (IBV_WC_WR_FLUSH_ERR, 5).
            long answered = System.nanoTime();
            int afterPost = a.postSend(qp, List.of(Wr.send(700, new Sg(0, len, mr.lkey()))))[0];
            long quietSince = System.nanoTime();
            while (System.nanoTime() - quietSince < 300_000_000L) {
                List<Wc> round = a.pollCq(cq, 16);
                flushed.addAll(round);
                if (round.isEmpty()) {
                    Thread.sleep(20);
                } else {
                    quietSince = System.nanoTime();
                }
            }
            ByteBuffer port = a.call(FfClient.QUERY_PORT, FfClient.buf(1).put(0, (byte) 1), 48);
            Layout rs = LayoutTable.struct("query_qp_rsp");
            ByteBuffer q = a.queryQp(qp);
            System.out.println("loss.after.post=" + afterPost);
            System.out.println("loss.after.flushed=" + flushed.stream().map(Wc::status).toList());
            System.out.println("loss.after.port.state=" + port.getInt(0));
            System.out.println("loss.after.query_qp.ret=" + q.getInt(rs.off("ret_errno")) + " state="
                    + q.get(rs.off("qp_state")));
            System.out.printf("loss.after.calls.ms=%d%n", (System.nanoTime() - answered) / 1_000_000);

            // Client A leaves: destroys what it made. Router A then holds nothing on rxe0.
            check(a.ret(FfClient.DESTROY_QP, qp.handle()) == 0, "loss destroy QP");
            check(a.ret(FfClient.DEREG_MR, mr.handle()) == 0, "loss dereg MR");
            check(a.ret(FfClient.DESTROY_CQ, cq.handle()) == 0, "loss destroy CQ");
            check(a.ret(FfClient.DEALLOC_PD, pd) == 0, "loss dealloc PD");
            Map<String, String> rxe0After = rdmaResources("rxe0");
            System.out.println("loss.rxe0.after=" + rxe0After);
            System.out.println("loss.rxe0.restored=" + rxe0After.equals(rxe0Before));
            System.out.println("loss.router.a.objects=" + ra.router.tenants().stream()
                    .mapToInt(t -> t.pds() + t.cqs() + t.qps() + t.srqs() + t.mrs() + t.channels()).sum());
        } finally {
            peer.destroyForcibly();
            peer.waitFor(10, TimeUnit.SECONDS);
        }
        Map<String, String> rxe1After = rdmaResources("rxe1");
        System.out.println("loss.rxe1.before=" + rxe1Before + " after=" + rxe1After);
        System.out.println("loss.rxe1.restored=" + rxe1After.equals(rxe1Before));
    }

    /** Router B and client B, for {@link #peerLoss}: prints its QPN, reads A's, connects, posts 64 receives, waits. */
    static void peer() throws Exception {
        try (RouterFixture rb = new RouterFixture(Limits.defaults(), PollerSettings.defaults(),
                ControlSettings.defaults(), LibibverbsDevice.open("libibverbs.so.1", "rxe1"), 0)) {
            FfClient b = rb.client();
            int pd = b.allocPd();
            Cq cq = b.createCq(128);
            Qp qp = b.createQp(pd, cq, cq, 64, 1);
            Mr mr = b.regMr(pd, SIZE, ACCESS_ALL);
            System.out.println("qpn=" + qp.qpn());
            System.out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            int qpnA = Integer.parseInt(in.readLine().trim());
            b.connect(qp, qpnA, ACCESS_ALL, 12, 7, gid("rxe0"));
            for (int i = 0; i < 64; i++) {
                check(b.postRecv(qp, i, new Sg(0, 4096, mr.lkey()))[0] == 0, "peer recv");
            }
            System.out.println("ready");
            System.out.flush();
            while (true) {
                b.pollCq(cq, 64); // the receives complete here until the SIGKILL
                Thread.sleep(10);
            }
        }
    }

    private static String expect(BufferedReader in, String prefix) throws Exception {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.startsWith(prefix)) {
                return line.substring(prefix.length()).trim();
            }
            System.out.println("loss.peer.said=" + line);
        }
        throw new IllegalStateException("peer router exited before '" + prefix + "'");
    }

    /** The kernel's object counts of one device: {@code rdma resource show <dev>} as {pd=1, cq=1, ...}. */
    static Map<String, String> rdmaResources(String dev) throws Exception {
        Process p = new ProcessBuilder("rdma", "resource", "show", dev).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        p.waitFor(10, TimeUnit.SECONDS);
        Map<String, String> counts = new TreeMap<>();
        String[] words = text.substring(text.indexOf(dev + ":") + dev.length() + 1).trim().split("\\s+");
        for (int i = 0; i + 1 < words.length; i += 2) {
            counts.put(words[i], words[i + 1]);
        }
        return counts;
    }

    /**
     * Two QPs of B on one SRQ, each connected to a QP of A: four 4 KiB SENDs, alternating between the two
     * connections, one at a time, land in the SRQ's receives in posting order, whichever QP they came in on.
     */
    static void srq(FfClient a, FfClient b, int pdA, int pdB, Cq cqA, Cq cqB, Mr mrA, Mr mrB) throws Exception {
        FfClient.Srq srq = b.createSrq(pdB, 16, 1);
        check(srq != null, "create SRQ B");
        Qp[] onSrq = {b.createQp(pdB, cqB, cqB, 16, 1, 2, srq), b.createQp(pdB, cqB, cqB, 16, 1, 2, srq)};
        Qp[] senders = {a.createQp(pdA, cqA, cqA, 16, 1), a.createQp(pdA, cqA, cqA, 16, 1)};
        for (int q = 0; q < 2; q++) {
            check(onSrq[q] != null && senders[q] != null, "create QPs on the SRQ");
            a.connect(senders[q], onSrq[q].qpn(), ACCESS_ALL, 12, 7, gid("rxe1"));
            b.connect(onSrq[q], senders[q].qpn(), ACCESS_ALL, 12, 7, gid("rxe0"));
        }
        int n = 4;
        int len = 4096;
        for (int i = 0; i < n * len; i++) {
            mrA.buf().put(i, (byte) (i * 11 + 5));
        }
        for (int i = 0; i < n; i++) {
            check(b.postSrqRecv(srq, 100 + i, new Sg((long) i * len, len, mrB.lkey()))[0] == 0, "post SRQ recv B");
        }
        // The limit event (ibv_modify_srq IBV_SRQ_LIMIT on rxe1): 4 posted, limit 3: the second SEND leaves 2 < 3.
        System.out.println("srq.arm.ret=" + b.modifySrq(srq, 0, n - 1, 2));
        boolean ok = true;
        List<Wc> got = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            check(a.postSend(senders[i % 2], List.of(new Wr(200 + i, 2, 2, 0, 0, 0,
                    new Sg((long) i * len, len, mrA.lkey()))))[0] == 0, "post send A to the SRQ");
            List<Wc> sent = await(a, cqA, 1);
            List<Wc> recv = await(b, cqB, 1);
            got.addAll(recv);
            ok &= sent.size() == 1 && sent.get(0).status() == 0 && recv.size() == 1 && recv.get(0).status() == 0
                    && recv.get(0).wrId() == 100 + i && recv.get(0).byteLen() == len
                    && recv.get(0).qpNum() == onSrq[i % 2].qpn();
        }
        System.out.println("srq.wc=" + got);
        System.out.println("srq.ok=" + ok);
        System.out.println("srq.bytes.equal=" + equal(mrA.buf(), 0, mrB.buf(), 0, n * len));
        List<String> limit = awaitEvents(b, e -> e.type() == AsyncEvents.SRQ_LIMIT_REACHED);
        System.out.println("srq.limit.events=" + limit);
        System.out.println("srq.limit.handle=" + srq.handle());
        for (int q = 0; q < 2; q++) {
            check(b.ret(FfClient.DESTROY_QP, onSrq[q].handle()) == 0, "destroy QP on the SRQ");
            check(a.ret(FfClient.DESTROY_QP, senders[q].handle()) == 0, "destroy QP A");
        }
        check(b.ret(FfClient.DESTROY_SRQ, srq.handle()) == 0, "destroy SRQ");
    }

    /**
     * Completion events from rxe1's completion channel: client B's CQ on a completion channel, armed with
     * REQ_NOTIFY_CQ, its GET_CQ_EVENT parked; a SEND from A completes on rxe1, which signals the router's channel, whose
     * thread answers the parked request. Then armed solicited-only: a plain SEND's completion is polled without an
     * event, a SEND with IBV_SEND_SOLICITED is answered (the CQ's second event).
     */
    static void cqEvents(FfClient a, FfClient b, int pdA, int pdB, Cq cqA, Mr mrA, Mr mrB) throws Exception {
        int ch = b.createCompChannel();
        Cq cqE = b.createCq(16, ch);
        Qp qb = b.createQp(pdB, cqE, cqE, 16, 1);
        Qp qa = a.createQp(pdA, cqA, cqA, 16, 1);
        a.connect(qa, qb.qpn(), ACCESS_ALL, 12, 7, gid("rxe1"));
        b.connect(qb, qa.qpn(), ACCESS_ALL, 12, 7, gid("rxe0"));
        java.util.concurrent.ExecutorService reader = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (java.nio.channels.SocketChannel events = b.open()) {
            for (int i = 0; i < 3; i++) {
                check(b.postRecv(qb, 600 + i, new Sg(0, 256, mrB.lkey()))[0] == 0, "post recv B (events)");
            }
            check(b.reqNotifyCq(cqE) == 0, "REQ_NOTIFY_CQ");
            b.sendGetCqEvent(events, ch);
            java.util.concurrent.Future<int[]> first = reader.submit(() -> FfClient.readCqEvent(events));
            check(a.postSend(qa, List.of(new Wr(610, 2, 2, 0, 0, 0, new Sg(0, 256, mrA.lkey()))))[0] == 0, "send A");
            int[] ev = first.get(20, TimeUnit.SECONDS);
            System.out.println("cqevent.first=" + ev[0] + "/" + ev[1]);
            System.out.println("cqevent.cq=" + cqE.handle());
            System.out.println("cqevent.first.wc=" + await(b, cqE, 1));

            check(b.reqNotifyCq(cqE, true) == 0, "REQ_NOTIFY_CQ solicited-only");
            b.sendGetCqEvent(events, ch);
            java.util.concurrent.Future<int[]> second = reader.submit(() -> FfClient.readCqEvent(events));
            check(a.postSend(qa, List.of(new Wr(611, 2, 2, 0, 0, 0, new Sg(0, 256, mrA.lkey()))))[0] == 0, "send A");
            System.out.println("cqevent.plain.wc=" + await(b, cqE, 1));
            System.out.println("cqevent.after.plain=" + (second.isDone() ? "answered" : "waiting"));
            check(a.postSend(qa, List.of(new Wr(612, 2, 2 | 4, 0, 0, 0, new Sg(0, 256, mrA.lkey()))))[0] == 0,
                    "solicited send A");
            ev = second.get(20, TimeUnit.SECONDS);
            System.out.println("cqevent.solicited=" + ev[0] + "/" + ev[1]);
            System.out.println("cqevent.solicited.wc=" + await(b, cqE, 1));
            await(a, cqA, 3);
        } finally {
            reader.shutdownNow();
        }
        check(a.ret(FfClient.DESTROY_QP, qa.handle()) == 0, "destroy QP A (events)");
        check(b.ret(FfClient.DESTROY_QP, qb.handle()) == 0, "destroy QP B (events)");
        check(b.ret(FfClient.DESTROY_CQ, cqE.handle()) == 0, "destroy CQ B (events): every event acknowledged");
        System.out.println("cqevent.destroyed=true");
    }

    /**
     * The devices' port events through the routers' async event threads: {@code ip link set tb1 down}, then up (rxe1's
     * netdev; its veth peer tb0, rxe0's, loses its carrier with it), each tenant's events listed after each step.
     */
    static void portEvents(FfClient a, FfClient b) throws Exception {
        for (String step : List.of("down", "up")) {
            Process ip = new ProcessBuilder("ip", "link", "set", "tb1", step).inheritIO().start();
            check(ip.waitFor() == 0, "ip link set tb1 " + step);
            int type = step.equals("down") ? AsyncEvents.PORT_ERR : AsyncEvents.PORT_ACTIVE;
            System.out.println("async." + step + ".b=" + awaitEvents(b, e -> e.type() == type));
            System.out.println("async." + step + ".a=" + awaitEvents(a, e -> e.type() == type));
        }
        // After the carrier comes back, both ends' IPv6 link-local addresses are tentative again until duplicate
        // address detection is done (about a second): rdma_cm's resolve from one of them (CmVmProbe, next) fails
        // with EADDRNOTAVAIL meanwhile, as it did once the VM ran fast enough to get there first.
        check(awaitNoTentativeAddress("tb0", "tb1"), "tb0 and tb1 addresses usable again within 30 s of link up");
        System.out.println("async.link.settled=true");
    }

    /** Whether every address of {@code links} has left the tentative state (DAD) within 30 s. */
    static boolean awaitNoTentativeAddress(String... links) throws Exception {
        long end = System.nanoTime() + 30_000_000_000L;
        while (System.nanoTime() < end) {
            boolean tentative = false;
            for (String link : links) {
                Process ip = new ProcessBuilder("ip", "-o", "addr", "show", "dev", link, "tentative")
                        .redirectErrorStream(true).start();
                String out = new String(ip.getInputStream().readAllBytes()).trim();
                tentative |= ip.waitFor() != 0 || !out.isEmpty();
            }
            if (!tentative) {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }

    /** The tenant's async events as element/type, taken until one matches {@code until} or 20 s passed. */
    static List<String> awaitEvents(FfClient c, java.util.function.Predicate<FfClient.AsyncEvent> until) throws Exception {
        List<String> got = new ArrayList<>();
        long end = System.nanoTime() + 20_000_000_000L;
        boolean seen = false;
        while (!seen && System.nanoTime() < end) {
            for (FfClient.AsyncEvent e : c.asyncEvents()) {
                got.add(e.element() + "/" + e.type());
                seen |= until.test(e);
            }
            if (!seen) {
                Thread.sleep(20);
            }
        }
        return got;
    }

    static List<String> events(FfClient c) throws Exception {
        List<String> got = new ArrayList<>();
        for (FfClient.AsyncEvent e : c.asyncEvents()) {
            got.add(e.element() + "/" + e.type());
        }
        return got;
    }

    /** A UC QP on each device: a 4 KiB SEND A to B, and a 4 KiB RDMA WRITE from A into B's MR (no READ on UC). */
    static void uc(FfClient a, FfClient b, int pdA, int pdB, Cq cqA, Cq cqB, Mr mrA, Mr mrB) throws Exception {
        Qp ua = a.createQp(pdA, cqA, cqA, 16, 1, 3);
        Qp ub = b.createQp(pdB, cqB, cqB, 16, 1, 3);
        check(ua != null && ub != null, "create UC QPs");
        a.connectUc(ua, ub.qpn(), 1 | 2, gid("rxe1"));
        b.connectUc(ub, ua.qpn(), 1 | 2, gid("rxe0"));
        int len = 4096;
        for (int i = 0; i < 2 * len; i++) {
            mrA.buf().put(i, (byte) (i * 3 + 9));
        }
        check(b.postRecv(ub, 301, new Sg(0, len, mrB.lkey()))[0] == 0, "post UC recv B");
        check(a.postSend(ua, List.of(Wr.send(311, new Sg(0, len, mrA.lkey()))))[0] == 0, "post UC send A");
        List<Wc> sent = await(a, cqA, 1);
        List<Wc> got = await(b, cqB, 1);
        System.out.println("uc.wc=" + sent + " " + got);
        System.out.println("uc.send.ok=" + (sent.size() == 1 && sent.get(0).status() == 0 && got.size() == 1
                && got.get(0).status() == 0 && got.get(0).wrId() == 301 && got.get(0).qpNum() == ub.qpn()
                && got.get(0).byteLen() == len));
        System.out.println("uc.send.bytes.equal=" + equal(mrA.buf(), 0, mrB.buf(), 0, len));
        check(a.postSend(ua, List.of(new Wr(312, 0, 2, 0, APP_B + 2 * len, mrB.rkey(),
                new Sg(len, len, mrA.lkey()))))[0] == 0, "post UC write A");
        List<Wc> wrote = await(a, cqA, 1);
        // UC has no acknowledgement: the requester completes once sent; the bytes land at B's NIC a moment later.
        boolean same = false;
        for (int i = 0; i < 2000 && !same; i++) {
            same = equal(mrA.buf(), len, mrB.buf(), 2 * len, len, false);
            if (!same) {
                Thread.sleep(5);
            }
        }
        System.out.println("uc.write.ok=" + (wrote.size() == 1 && wrote.get(0).status() == 0 && wrote.get(0).opcode() == 1));
        System.out.println("uc.write.bytes.equal=" + same);
        check(a.ret(FfClient.DESTROY_QP, ua.handle()) == 0, "destroy UC QP A");
        check(b.ret(FfClient.DESTROY_QP, ub.handle()) == 0, "destroy UC QP B");
    }

    /**
     * A UD QP on each device: A sends 1 KiB (the path MTU) through an AH towards rxe1's GID to B's QPN and qkey; B's
     * receive holds the 40-byte GRH, then the payload.
     */
    static void ud(FfClient a, FfClient b, int pdA, int pdB, Cq cqA, Cq cqB, Mr mrA, Mr mrB) throws Exception {
        int qkey = 0x11111111;
        Qp ua = a.createQp(pdA, cqA, cqA, 16, 1, 4);
        Qp ub = b.createQp(pdB, cqB, cqB, 16, 1, 4);
        check(ua != null && ub != null, "create UD QPs");
        a.connectUd(ua, qkey);
        b.connectUd(ub, qkey);
        int ah = a.createAh(pdA, gid("rxe1"));
        check(ah != 0, "create AH A");
        int len = 1024;
        for (int i = 0; i < len; i++) {
            mrA.buf().put(i, (byte) (i * 17 + 4));
        }
        check(b.postRecv(ub, 401, new Sg(0, 40 + len, mrB.lkey()))[0] == 0, "post UD recv B");
        check(a.postSendUd(ua, List.of(new Wr(411, 2, 2, 0, 0, ub.qpn(), new Sg(0, len, mrA.lkey()))), new int[] {ah},
                qkey)[0] == 0, "post UD send A");
        List<Wc> sent = await(a, cqA, 1);
        List<Wc> got = await(b, cqB, 1);
        System.out.println("ud.wc=" + sent + " " + got);
        System.out.println("ud.ok=" + (sent.size() == 1 && sent.get(0).status() == 0 && got.size() == 1
                && got.get(0).status() == 0 && got.get(0).wrId() == 401 && got.get(0).byteLen() == 40 + len
                && got.get(0).srcQp() == ua.qpn()));
        System.out.println("ud.bytes.equal=" + equal(mrA.buf(), 0, mrB.buf(), 40, len));
        check(a.ret(FfClient.DESTROY_AH, ah) == 0, "destroy AH A");
        check(a.ret(FfClient.DESTROY_QP, ua.handle()) == 0, "destroy UD QP A");
        check(b.ret(FfClient.DESTROY_QP, ub.handle()) == 0, "destroy UD QP B");
    }

    /**
     * A figure, not a check: {@code BW_MESSAGES} SENDs of 64 KiB from A to B with up to 8 in flight (B re-posts each
     * receive as it completes), MB/s over the whole run. Printed beside perftest's ib_send_bw on the same rxe pair by
     * the test; both run under the VM's CPU emulation on one vCPU, the routers and clients in one JVM.
     */
    static void bandwidth(FfClient a, FfClient b, Qp qpA, Qp qpB, Cq cqA, Cq cqB, Mr mrA, Mr mrB) throws Exception {
        int total = Integer.getInteger("bw.messages", 200);
        int window = 8;
        for (int i = 0; i < window; i++) {
            check(b.postRecv(qpB, 1000 + i, new Sg(0, SIZE, mrB.lkey()))[0] == 0, "bw recv");
        }
        long start = System.nanoTime();
        int posted = 0;
        int sent = 0;
        int received = 0;
        long deadline = start + 300_000_000_000L;
        while ((sent < total || received < total) && System.nanoTime() < deadline) {
            while (posted < total && posted - sent < window) {
                check(a.postSend(qpA, List.of(new Wr(2000 + posted, 2, 2, 0, 0, 0, new Sg(0, SIZE, mrA.lkey()))))[0] == 0,
                        "bw send");
                posted++;
            }
            for (Wc wc : a.pollCq(cqA, window)) {
                check(wc.status() == 0, "bw send completion " + wc);
                sent++;
            }
            for (Wc wc : b.pollCq(cqB, window)) {
                check(wc.status() == 0, "bw recv completion " + wc);
                received++;
                if (received + window <= total) {
                    check(b.postRecv(qpB, wc.wrId(), new Sg(0, SIZE, mrB.lkey()))[0] == 0, "bw re-post");
                }
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.println("bw.messages=" + received);
        System.out.printf("bw.router.MBps=%.1f%n", received * (double) SIZE / seconds / 1e6);
    }

    /** Polls until n completions came, for up to 120 s (the VM is slow; the test asserts on what came). */
    static List<Wc> await(FfClient c, Cq cq, int n) throws InterruptedException {
        List<Wc> out = new ArrayList<>();
        long end = System.nanoTime() + 120_000_000_000L;
        while (out.size() < n && System.nanoTime() < end) {
            out.addAll(c.pollCq(cq, n - out.size()));
            if (out.size() < n) {
                Thread.sleep(1);
            }
        }
        return out;
    }

    static boolean equal(ByteBuffer x, int xAt, ByteBuffer y, int yAt, int n) {
        return equal(x, xAt, y, yAt, n, true);
    }

    static boolean equal(ByteBuffer x, int xAt, ByteBuffer y, int yAt, int n, boolean say) {
        for (int i = 0; i < n; i++) {
            if (x.get(xAt + i) != y.get(yAt + i)) {
                if (say) {
                    System.out.println("first.difference=" + i);
                }
                return false;
            }
        }
        return true;
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what + " failed");
        }
    }
}
