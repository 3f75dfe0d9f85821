// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.agent.RefusalLog;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;

/**
 * The body of the router's poll threads (the control loop, the idle set): turns until stopped, and a turn that
 * fails unexpectedly does not end the thread. A fault that repeats on every turn would otherwise spin a core and
 * write one stack trace per turn, so it is logged once a minute with a count, and the loop pauses briefly first.
 */
final class GuardedLoop {

    private static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private GuardedLoop() {
    }

    static void run(String name, BooleanSupplier running, Runnable turn, Logger logger) {
        RefusalLog failures = new RefusalLog(logger, Duration.ofMinutes(1));
        while (running.getAsBoolean()) {
            try {
                turn.run();
            } catch (RuntimeException e) {
                failures.warn(name, "{} failed a turn: {}", name, e.toString(), e);
                LockSupport.parkNanos(PAUSE_NANOS);
            }
        }
    }
}
