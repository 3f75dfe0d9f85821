// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A predecessor's stop after the handover waits for the successor's readiness only when it was ready itself. */
class SuccessorReadinessTest {

    @Test
    void aReadyPredecessorThatHandedOverStopsOnceTheSuccessorIsReady() throws InterruptedException {
        AtomicInteger polls = new AtomicInteger();
        SuccessorReadiness readiness = new SuccessorReadiness(() -> polls.incrementAndGet() < 4 ? 503 : 200);
        readiness.ready();
        readiness.handedOver();

        assertThat(readiness.awaitBeforeStop(Duration.ofSeconds(10))).isTrue();
        assertThat(polls).hasValue(4);
    }

    @Test
    void aSuccessorThatNeverGetsReadyDelaysTheStopByTheBoundOnly() throws InterruptedException {
        SuccessorReadiness readiness = new SuccessorReadiness(() -> 503);
        readiness.ready();
        readiness.handedOver();
        long started = System.nanoTime();

        assertThat(readiness.awaitBeforeStop(Duration.ofMillis(200))).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(Duration.ofMillis(200),
                Duration.ofSeconds(5));
    }

    @Test
    void anInstanceThatWasNeverReadyOrDidNotHandOverStopsAtOnce() throws InterruptedException {
        AtomicInteger polls = new AtomicInteger();
        SuccessorReadiness neverReady = new SuccessorReadiness(() -> polls.incrementAndGet() > 0 ? 503 : 200);
        neverReady.handedOver();                 // the demo: no kubelet, so nothing kubelet could lose
        SuccessorReadiness notHandedOver = new SuccessorReadiness(() -> polls.incrementAndGet() > 0 ? 503 : 200);
        notHandedOver.ready();                   // a plain stop

        assertThat(neverReady.awaitBeforeStop(Duration.ofSeconds(10))).isTrue();
        assertThat(notHandedOver.awaitBeforeStop(Duration.ofSeconds(10))).isTrue();
        assertThat(polls).hasValue(0);
    }
}
