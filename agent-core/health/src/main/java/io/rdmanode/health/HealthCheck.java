// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * One long-running part of the agent reporting whether it works. {@link Kind#ALIVE} checks feed
 * {@code /healthz} (a failing one means "restart me"), {@link Kind#READY} checks feed {@code /readyz}
 * (a failing one means "do not rely on me yet"). {@link #check()} is called on the health bundle's check threads
 * (Felix's health-check model) by a background refresh, about once a second, whose result the endpoints serve:
 * a check still running after a bound (2 s) is reported failing as timed out, so it should be cheap and report
 * state kept by the component; a hung check never holds an HTTP request.
 */
@ConsumerType
public interface HealthCheck {

    enum Kind { ALIVE, READY }

    /** Stable name shown in responses, e.g. {@code config} or {@code discovery}. */
    String name();

    Kind kind();

    HealthStatus check();
}
