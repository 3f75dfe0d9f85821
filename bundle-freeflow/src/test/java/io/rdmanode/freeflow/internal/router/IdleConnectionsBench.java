// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * QP setup latency (CREATE_CQ, two CREATE_QPs, six MODIFY_QPs: nine control calls, each on a new connection as
 * the genuine client makes them) with 1,000 idle control connections open against none, interleaved round by
 * round in one run so load hits both alike. Prints medians, p90s and the ratio; not a test. Run:
 * {@code ./mvnw -q -o -pl bundle-freeflow -am test-compile} then
 * {@code java -cp <test classpath> io.rdmanode.freeflow.internal.router.IdleConnectionsBench [rounds] [setups]}.
 */
public final class IdleConnectionsBench {
    private static final int ACCESS = 7;

    private IdleConnectionsBench() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int setups = args.length > 1 ? Integer.parseInt(args[1]) : 20;
        List<Long> none = new ArrayList<>();
        List<Long> idle = new ArrayList<>();
        try (RouterFixture fx = new RouterFixture(Limits.defaults(), new ControlSettings(2, 4096, 2000, 600_000, 5_000))) {
            FfClient c = fx.client();
            int pd = c.allocPd();
            measure(c, pd, setups, new ArrayList<>());                     // warm-up
            for (int r = 0; r < rounds; r++) {
                measure(c, pd, setups, none);
                List<SocketChannel> held = new ArrayList<>();
                for (int i = 0; i < 1000; i++) {
                    held.add(SocketChannel.open(UnixDomainSocketAddress.of(fx.server.socket())));
                }
                while (fx.server.openConnections() < 1000) {
                    Thread.onSpinWait();
                }
                Thread.sleep(200);                  // idle, as idle connections are: past the loop's 50 ms quiet mark
                measure(c, pd, setups, idle);
                for (SocketChannel ch : held) {
                    ch.close();
                }
                while (fx.server.openConnections() > 0) {
                    Thread.onSpinWait();
                }
            }
        }
        long[] n = sorted(none);
        long[] i = sorted(idle);
        System.out.printf("QP setup (9 control calls), %d rounds x %d setups each, interleaved%n", rounds, setups);
        System.out.printf("  no idle connections:    median %.0f us, p90 %.0f us%n", n[n.length / 2] / 1e3, n[n.length * 9 / 10] / 1e3);
        System.out.printf("  1,000 idle connections: median %.0f us, p90 %.0f us%n", i[i.length / 2] / 1e3, i[i.length * 9 / 10] / 1e3);
        System.out.printf("  ratio (median): %.2f%n", (double) i[i.length / 2] / n[n.length / 2]);
    }

    private static void measure(FfClient c, int pd, int setups, List<Long> into) throws Exception {
        for (int s = 0; s < setups; s++) {
            long t0 = System.nanoTime();
            Cq cq = c.createCq(16);
            Qp a = c.createQp(pd, cq, cq, 8, 1);
            Qp b = c.createQp(pd, cq, cq, 8, 1);
            c.connect(a, b.qpn(), ACCESS, 1, 7);
            c.connect(b, a.qpn(), ACCESS, 1, 7);
            into.add(System.nanoTime() - t0);
            c.ret(FfClient.DESTROY_QP, a.handle());
            c.ret(FfClient.DESTROY_QP, b.handle());
            c.ret(FfClient.DESTROY_CQ, cq.handle());
        }
    }

    private static long[] sorted(List<Long> xs) {
        long[] a = xs.stream().mapToLong(Long::longValue).toArray();
        Arrays.sort(a);
        return a;
    }
}
