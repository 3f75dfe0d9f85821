// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.posix.Posix;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;

/**
 * What a control verb costs a tenant of a draining predecessor: ALLOC_PD and DEALLOC_PD, each on a new
 * connection as the genuine client makes them, served by the router directly (before the handover), passed back
 * by the successor to the predecessor (during the drain: the successor accepts, asks the predecessor over its
 * drain desk and passes the descriptor), and served by the successor directly (after the drain). Prints medians
 * and p90s in microseconds; not a test. Run through {@code scripts/bench-freeflow-handover [rounds] [calls]}.
 */
public final class HandoverForwardBench {

    private HandoverForwardBench() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 400;
        try (RouterFixture fx = new RouterFixture()) {
            FfClient c = fx.client();
            int held = c.allocPd();                             // keeps this JVM a tenant with objects there
            measure(c, 10 * calls, new ArrayList<>());          // warm-up (JIT)
            List<Long> direct = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                measure(c, calls, direct);
            }

            int copy = Posix.libc().fcntl(fx.server.door().fd(), Posix.F_DUPFD_CLOEXEC, 0);
            fx.server.door().handedOver();
            try (Router sr = new Router(new RouterSettings(fx.shm, "s", Limits.defaults(), PollerSettings.defaults()));
                 ControlServer successor = new ControlServer(fx.server.socket(), OptionalInt.of(copy), sr,
                         ControlSettings.defaults(), 100)) {
                List<Long> passed = new ArrayList<>();
                for (int r = 0; r < rounds; r++) {
                    measure(c, calls, passed);
                }
                long forwarded = successor.forwardedToPredecessor();
                c.ret(FfClient.DEALLOC_PD, held);
                int left = fx.server.drain(10_000);
                List<Long> after = new ArrayList<>();
                measure(c, calls, new ArrayList<>());           // the link learns the drain ended; warm-up
                for (int r = 0; r < rounds; r++) {
                    measure(c, calls, after);
                }
                System.out.printf("verb latency, us (median / p90), %d calls: predecessor direct %s, passed back by"
                        + " the successor %s, successor direct after the drain %s; %d connections passed, drain left"
                        + " %d, successor tenants %d%n", direct.size(), stats(direct), stats(passed), stats(after),
                        forwarded, left, sr.tenants().size());
            }
        }
    }

    private static void measure(FfClient c, int calls, List<Long> into) throws Exception {
        for (int i = 0; i < calls / 2; i++) {
            long t0 = System.nanoTime();
            int pd = c.allocPd();
            long t1 = System.nanoTime();
            if (pd <= 0 || c.ret(FfClient.DEALLOC_PD, pd) != 0) {
                throw new IllegalStateException("ALLOC_PD/DEALLOC_PD failed: pd " + pd);
            }
            long t2 = System.nanoTime();
            into.add(t1 - t0);
            into.add(t2 - t1);
        }
    }

    private static String stats(List<Long> nanos) {
        List<Long> s = new ArrayList<>(nanos);
        Collections.sort(s);
        return String.format("%.0f / %.0f", s.get(s.size() / 2) / 1e3, s.get(s.size() * 9 / 10) / 1e3);
    }
}
