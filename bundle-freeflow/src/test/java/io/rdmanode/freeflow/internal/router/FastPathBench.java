// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import io.rdmanode.freeflow.testclient.FfClient.Mr;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import io.rdmanode.freeflow.testclient.FfClient.Sg;
import io.rdmanode.freeflow.testclient.FfClient.Wr;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * The router thread's own cost per fast-path request, without the client round trip: requests prepared once in
 * QP and CQ mailboxes and served again and again (the state word is left alone, so the poller thread never serves
 * them). Reports the thread's CPU time per request as well as wall time (CPU time holds on a loaded machine),
 * and the bytes the thread allocated per request.
 * Prints figures; not a test. Run: {@code ./mvnw -q -pl bundle-freeflow test-compile exec:java
 * -Dexec.classpathScope=test -Dexec.mainClass=io.rdmanode.freeflow.internal.router.FastPathBench} (add JVM flags
 * with MAVEN_OPTS, e.g. the start script's c1 or c2 profile).
 */
public final class FastPathBench {
    private static final int ACCESS = 7;

    private FastPathBench() {
    }

    private record Pair(Qp a, Qp b) {
    }

    public static void main(String[] args) throws Exception {
        try (RouterFixture fx = new RouterFixture()) {
            FfClient c = fx.client();
            int pd = c.allocPd();
            Cq cq = c.createCq(4096);
            Cq rcq = c.createCq(4096);
            Mr m = c.regMr(pd, 2 << 20, ACCESS);
            Mr n = c.regMr(pd, 2 << 20, ACCESS);
            List<Pair> pairs = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Qp a = c.createQp(pd, cq, rcq, 256, 1);
                Qp b = c.createQp(pd, cq, rcq, 256, 1);
                c.connect(a, b.qpn(), ACCESS, 1, 7);
                c.connect(b, a.qpn(), ACCESS, 1, 7);
                pairs.add(new Pair(a, b));
            }
            // Unsignaled: only receives complete, drained by a prepared POLL_CQ of 64.
            c.postSend(pairs.get(0).a(), List.of(new Wr(1, 0, 0, 0, 0, n.rkey(), new Sg(0, 64, m.lkey()))));
            List<Wr> chain = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                chain.add(new Wr(i, 0, 0, 0, i * 64L, n.rkey(), new Sg(i * 64L, 64, m.lkey())));
            }
            c.postSend(pairs.get(1).a(), chain);
            c.postRecv(pairs.get(2).b(), 1, new Sg(0, 64, n.lkey()));
            c.postSend(pairs.get(2).a(), List.of(new Wr(1, 2, 0, 0, 0, 0, new Sg(0, 64, m.lkey()))));
            c.postSend(pairs.get(3).a(), List.of(new Wr(1, 0, 0, 0, 0, n.rkey(), new Sg(0, 1 << 20, m.lkey()))));
            c.postRecv(pairs.get(4).b(), 1, new Sg(0, 1 << 20, n.lkey()));
            c.postSend(pairs.get(4).a(), List.of(new Wr(1, 2, 0, 0, 0, 0, new Sg(0, 1 << 20, m.lkey()))));
            c.pollCq(rcq, 64);
            c.pollCq(cq, 1);
            Mailbox write = box(fx, pairs.get(0).a());
            Mailbox list = box(fx, pairs.get(1).a());
            Mailbox recv = box(fx, pairs.get(2).b());
            Mailbox send = box(fx, pairs.get(2).a());
            Mailbox bigWrite = box(fx, pairs.get(3).a());
            Mailbox bigRecv = box(fx, pairs.get(4).b());
            Mailbox bigSend = box(fx, pairs.get(4).a());
            Mailbox drain;
            Mailbox empty;
            synchronized (fx.router) {
                Tenant t = fx.router.tenantByPid((int) ProcessHandle.current().pid());
                drain = t.cqs.get(rcq.handle()).mailbox;
                empty = t.cqs.get(cq.handle()).mailbox;
            }
            FastPath fp = new FastPath(fx.router);
            System.out.println("per request: router-thread CPU time (wall time); 1 MiB copies against one memcpy-like"
                    + " ByteBuffer.put of the same size");
            for (int round = 0; round < 5; round++) {
                int k = 1_000_000;
                String w = time(k, () -> fp.serve(write));
                String l = time(k / 16, () -> fp.serve(list));
                int[] i = {0};
                String s = time(k, () -> {
                    fp.serve(recv);
                    fp.serve(send);
                    if ((++i[0] & 31) == 0) {
                        fp.serve(drain);
                    }
                });
                String e = time(k, () -> fp.serve(empty));
                String bw = time(500, () -> fp.serve(bigWrite));
                String bs = time(500, () -> {
                    fp.serve(bigRecv);
                    fp.serve(bigSend);
                    fp.serve(drain);
                });
                java.nio.ByteBuffer src = m.buf();
                java.nio.ByteBuffer dst = n.buf();
                String cp = time(500, () -> dst.put(0, src, 0, 1 << 20));
                System.out.printf("round %d: 64 B WRITE %s | 16-WR list %s per list | 64 B SEND+RECV pair %s"
                        + " | empty poll %s | 1 MiB WRITE %s, SEND+RECV %s, put %s%n", round, w, l, s, e, bw, bs, cp);
            }
            for (Mailbox mb : List.of(write, list, recv, send, bigWrite, bigRecv, bigSend, drain, empty)) {
                mb.buf.putInt(0, 0);
            }
        }
        scanCost();
    }

    /** An idle scan of 8 mailboxes by a poller that never backs off: the floor of how soon a request is seen. */
    private static void scanCost() throws Exception {
        PollerSettings spin = new PollerSettings(Integer.MAX_VALUE, 0, 0, 100_000);
        try (RouterFixture fx = new RouterFixture(Limits.defaults(), spin)) {
            FfClient c = fx.client();
            int pd = c.allocPd();
            Cq cq = c.createCq(16);
            for (int i = 0; i < 7; i++) {
                c.createQp(pd, cq, cq, 16, 1);
            }
            MailboxPoller p = fx.router.poller();
            for (int round = 0; round < 3; round++) {
                long s0 = p.scans();
                double c0 = p.cpuSeconds();
                Thread.sleep(1000);
                long s1 = p.scans();
                double c1 = p.cpuSeconds();
                System.out.printf("idle scan of %d mailboxes: %.1f ns of poller CPU%n", p.mailboxes(),
                        (c1 - c0) * 1e9 / (s1 - s0));
            }
        }
    }

    private static Mailbox box(RouterFixture fx, Qp qp) {
        synchronized (fx.router) {
            return fx.router.tenantByPid((int) ProcessHandle.current().pid()).qps.get(qp.handle()).mailbox;
        }
    }

    private static String time(int n, Runnable r) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long a0 = mx.getCurrentThreadAllocatedBytes();
        long c0 = mx.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            r.run();
        }
        long t1 = System.nanoTime();
        long c1 = mx.getCurrentThreadCpuTime();
        long a1 = mx.getCurrentThreadAllocatedBytes();
        return String.format("%.3f us (%.3f) %.0f B", (c1 - c0) / 1e3 / n, (t1 - t0) / 1e3 / n, (a1 - a0) / (double) n);
    }
}
