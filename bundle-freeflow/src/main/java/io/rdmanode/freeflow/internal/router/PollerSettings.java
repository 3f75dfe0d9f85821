// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

/**
 * Adaptive polling: after a request the poller spins {@code spins} empty scans, then calls Thread.onSpinWait for
 * {@code spinWaits} more, then yields {@code yields} times, then parks with a pause doubling up to {@code parkMaxNanos}.
 */
public record PollerSettings(int spins, int spinWaits, int yields, long parkMaxNanos) {

    public static PollerSettings defaults() {
        return new PollerSettings(2_000, 20_000, 200, 100_000);
    }
}
