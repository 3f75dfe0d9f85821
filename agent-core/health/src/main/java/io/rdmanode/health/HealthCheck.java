// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * One long-running part of the agent reporting whether it works. {@link Kind#ALIVE} checks feed
 * {@code /healthz} (a failing one means "restart me"), {@link Kind#READY} checks feed {@code /readyz}
 * (a failing one means "do not rely on me yet"). {@link #check()} is called per HTTP request, from the
 * endpoint's thread, so it must be cheap and must not block: report state kept by the component.
 */
@ConsumerType
public interface HealthCheck {

    enum Kind { ALIVE, READY }

    /** Stable name shown in responses, e.g. {@code config} or {@code discovery}. */
    String name();

    Kind kind();

    HealthStatus check();
}
