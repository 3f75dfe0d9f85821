// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * A client spinning on an empty CQ sends the router millions of POLL_CQs a second; each used to leave a request
 * object behind (24 B), enough garbage for dozens of young collections a second from an idle client. The poll is
 * served from the mailbox in place now. The prepared mailbox is served on this thread, as {@link FastPathBench}
 * does, and the thread's own allocation counter (exact, TLABs included) is read around it.
 */
class FastPathAllocationTest {

    @Test
    void anEmptyPollAllocatesNothing() throws Exception {
        try (RouterFixture fx = new RouterFixture()) {
            FfClient c = fx.client();
            Cq cq = c.createCq(16);
            c.pollCq(cq, 1);                                  // leaves a POLL_CQ of 1 in the CQ's mailbox
            Mailbox mb;
            synchronized (fx.router) {
                mb = fx.router.tenantByPid((int) ProcessHandle.current().pid()).cqs.get(cq.handle()).mailbox;
            }
            FastPath fp = new FastPath(fx.router);
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            int polls = 100_000;
            for (int i = 0; i < polls; i++) {                 // warm: classes loaded, counters' cells made
                fp.serve(mb);
            }
            long before = mx.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < polls; i++) {
                fp.serve(mb);
            }
            long bytes = mx.getCurrentThreadAllocatedBytes() - before;
            mb.buf.putInt(0, 0);                              // the state word: the poller leaves the box alone

            assertThat(mb.buf.getInt(Mailbox.RSP)).as("completions answered").isZero();
            // 2.4 MB before; a bound, not zero: a JVM may allocate now and then on any thread.
            assertThat(bytes).as("bytes allocated by %,d polls", polls).isLessThan(16_384);
        }
    }
}
