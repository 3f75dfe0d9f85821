// SPDX-License-Identifier: Apache-2.0
/**
 * Whiteboard contracts of the agent's HTTP endpoint: health checks behind {@code /healthz} and {@code /readyz},
 * sections of the {@code /status} document, and extra endpoints such as {@code /metrics}.
 * Register implementations as OSGi services; the health bundle picks them up and drops them when they go.
 * Checks run on the bundle's own threads with a timeout (Felix's health-check model), refreshed in the
 * background: a hung check is reported as timed out, and {@code /healthz} and {@code /readyz} answer from the
 * last result without waiting. {@code /startedz} answers 200 once the agent has started: every READY check passing
 * or {@link io.rdmanode.health.HealthStatus#waiting waiting} on a peer outside the agent (since 1.1).
 *
 * @since 1.0
 */
@Export
@Version("1.1.0")
package io.rdmanode.health;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
