// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.time.Duration;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A predecessor's last step before it stops (issue 27): kubelet serves each resource from its newest registration,
 * and until the successor has registered a resource, the predecessor's device-plugin socket is the one kubelet
 * calls. The successor takes the doors (HTTP, CNI, Freeflow) first and registers with kubelet on its own time, so a
 * stop right after the handover (SIGTERM from {@code takeover}, {@code --exit-after-handover}) would leave a slow
 * kubelet holding an endpoint that is gone. So a predecessor that handed over, and that was itself ready (every
 * pool registered), waits until the successor answers {@code /readyz} with 200 on the HTTP endpoint it took
 * over, or the bound passes, before its device-plugin sockets go. One that was never ready (no kubelet) has nothing
 * kubelet could lose and stops at once.
 */
final class SuccessorReadiness {

    private static final Logger LOG = LoggerFactory.getLogger(SuccessorReadiness.class);
    private static final long POLL_MILLIS = 20;

    private final IntSupplier successorReadyz;
    private volatile boolean wasReady;
    private volatile boolean handedOver;

    /** @param successorReadyz the HTTP status of {@code /readyz} on the shared endpoint (-1: no answer) */
    SuccessorReadiness(IntSupplier successorReadyz) {
        this.successorReadyz = successorReadyz;
    }

    /** This instance was ready: every pool registered with kubelet. */
    void ready() {
        wasReady = true;
    }

    /** This instance handed over to a successor. */
    void handedOver() {
        handedOver = true;
    }

    boolean isHandedOver() {
        return handedOver;
    }

    /**
     * Before the stop: waits (up to {@code bound}) for the successor to be ready, when this instance handed over
     * after it was ready. Returns true when there was nothing to wait for or the successor is ready.
     */
    boolean awaitBeforeStop(Duration bound) throws InterruptedException {
        if (!handedOver) {
            return true;
        }
        if (!wasReady) {
            LOG.info("handed over before this instance was ready (every pool registered with kubelet): nothing"
                    + " kubelet could lose, stopping without waiting for the successor");
            return true;
        }
        long started = System.nanoTime();
        long deadline = started + bound.toNanos();
        while (successorReadyz.getAsInt() != 200) {
            if (System.nanoTime() > deadline) {
                LOG.warn("successor not ready (every pool registered with kubelet) {} ms after the stop began;"
                        + " stopping anyway: kubelet may still call this instance's device-plugin sockets",
                        bound.toMillis());
                return false;
            }
            Thread.sleep(POLL_MILLIS);
        }
        long waited = Duration.ofNanos(System.nanoTime() - started).toMillis();
        if (waited >= POLL_MILLIS) {
            LOG.info("successor ready (every pool registered with kubelet) after {} ms: stopping", waited);
        }
        return true;
    }
}
