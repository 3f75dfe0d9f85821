// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health;

import java.util.Objects;

/** Result of a {@link HealthCheck}: ok or failing, with a message an operator can act on. */
public record HealthStatus(boolean ok, String message) {

    public HealthStatus {
        Objects.requireNonNull(message, "message");
    }

    public static HealthStatus ok(String message) {
        return new HealthStatus(true, message);
    }

    public static HealthStatus failing(String message) {
        return new HealthStatus(false, message);
    }
}
