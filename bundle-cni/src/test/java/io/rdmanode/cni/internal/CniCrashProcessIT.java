// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short form of scripts/bench-cni-crash: 100 ADD/DEL pairs through the shipped executable while the agent
 * JVM is SIGKILLed a random 0-150 ms after it serves again (25 kills at most, which bounds the run time on a
 * loaded machine) and restarted over the same state and
 * the file-backed fake RDMA kernel. Nothing may leak, be lost or move twice (CniCrashBench says what it checks).
 */
class CniCrashProcessIT {

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES) // a hung agent is a failure, not a stuck build (kills stop at 25)
    void sigkilledAgentNeverLeaksLosesOrMovesTwice() throws Exception {
        Assumptions.assumeTrue(Netns.ip("netns", "list") == 0 && ProcessHandle.current().info().user()
                .map("root"::equals).orElse(false), "needs root and iproute2");

        CniCrashBench.Result r = CniCrashBench.run(100, 150, 25, System.out);
        r.print(System.out, 150);

        assertThat(r.problems()).isEmpty();
        assertThat(r.pairs()).isEqualTo(100);
        assertThat(r.kills()).as("the agent was killed").isPositive();
        assertThat(r.leakedAtKills() + r.leakedAtEnd() + r.stateLeftAtEnd()).as("leaked").isZero();
        assertThat(r.lost()).as("lost state").isZero();
        assertThat(r.doubleMoves()).as("double moves").isZero();
        assertThat(r.moves()).isEqualTo(r.returns()).isPositive();
        assertThat(r.strayTempFiles()).as("temp files of cut state writes left behind").isZero();
        assertThat(r.unexpected()).as("CNI errors other than 11").isZero();
        assertThat(r.ok()).isTrue();
    }
}
