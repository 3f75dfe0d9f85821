// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health;

import java.util.Objects;

/**
 * Result of a {@link HealthCheck}: ok or failing, with a message an operator can act on. A failing result may be
 * {@link #waiting}: the agent has done its part and waits on a peer outside it (kubelet that is not there yet).
 * Such a READY check holds {@code /readyz} at 503 like any failing one, but the agent counts as started
 * ({@code /startedz} answers 200): the demo, a node before its kubelet, a start-up measurement.
 *
 * @param waiting failing only because a peer outside the agent has not come yet; never true when {@code ok}
 */
public record HealthStatus(boolean ok, String message, boolean waiting) {

    public HealthStatus {
        Objects.requireNonNull(message, "message");
        if (ok && waiting) {
            throw new IllegalArgumentException("a passing check does not wait");
        }
    }

    public HealthStatus(boolean ok, String message) {
        this(ok, message, false);
    }

    public static HealthStatus ok(String message) {
        return new HealthStatus(true, message, false);
    }

    public static HealthStatus failing(String message) {
        return new HealthStatus(false, message, false);
    }

    /**
     * Not ready, because a peer outside the agent has not come yet; the agent itself has started.
     *
     * @since 1.1
     */
    public static HealthStatus waiting(String message) {
        return new HealthStatus(false, message, true);
    }
}
