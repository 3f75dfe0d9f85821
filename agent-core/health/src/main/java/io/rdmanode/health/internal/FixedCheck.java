// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;

/** A readiness check whose answer is known when it is made: the endpoint's own state, not a component's. */
record FixedCheck(String name, HealthStatus status) implements HealthCheck {

    @Override
    public Kind kind() {
        return Kind.READY;
    }

    @Override
    public HealthStatus check() {
        return status;
    }
}
