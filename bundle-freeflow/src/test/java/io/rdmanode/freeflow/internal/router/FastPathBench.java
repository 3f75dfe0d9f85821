// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import io.rdmanode.freeflow.testclient.FfClient.Mr;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import io.rdmanode.freeflow.testclient.FfClient.Sg;
import io.rdmanode.freeflow.testclient.FfClient.Wr;
import java.util.List;

/**
 * The router thread's own cost per fast-path request, without the client round trip: one prepared 64-byte RDMA
 * WRITE post in a QP mailbox served again and again, and an empty POLL_CQ. Prints figures; not a test. Run:
 * {@code ./mvnw -q -pl bundle-freeflow test-compile exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.rdmanode.freeflow.internal.router.FastPathBench} (add JVM flags with MAVEN_OPTS).
 */
public final class FastPathBench {
    private FastPathBench() {
    }

    public static void main(String[] args) throws Exception {
        try (RouterFixture fx = new RouterFixture()) {
            FfClient c = fx.client();
            int pd = c.allocPd();
            Cq cq = c.createCq(4096);
            Qp a = c.createQp(pd, cq, cq, 256, 1);
            Qp b = c.createQp(pd, cq, cq, 256, 1);
            Mr m = c.regMr(pd, 1 << 20, 7);
            c.connect(a, b.qpn(), 7, 1, 7);
            c.connect(b, a.qpn(), 7, 1, 7);
            c.postSend(a, List.of(new Wr(1, 0, 0, 0, 0, m.rkey(), new Sg(0, 64, m.lkey()))));
            Mailbox qpBox;
            Mailbox cqBox;
            synchronized (fx.router) {
                Tenant t = fx.router.tenantByPid((int) ProcessHandle.current().pid());
                qpBox = t.qps.get(a.handle()).mailbox;
                cqBox = t.cqs.get(cq.handle()).mailbox;
            }
            // The request stays in the mailbox; the state word is left alone so the poller thread never serves it.
            c.pollCq(cq, 1);
            FastPath fp = new FastPath(fx.router);
            int n = 2_000_000;
            for (int round = 0; round < 5; round++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    fp.serve(qpBox);
                }
                long t1 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    fp.serve(cqBox);
                }
                long t2 = System.nanoTime();
                double post = (t1 - t0) / 1e3 / n;
                System.out.printf("round %d: 64-byte WRITE post %.3f us (%.2f Mpps one router thread), empty poll %.3f us%n",
                        round, post, 1 / post, (t2 - t1) / 1e3 / n);
            }
            qpBox.buf.putInt(0, 0);
            cqBox.buf.putInt(0, 0);
        }
    }
}
