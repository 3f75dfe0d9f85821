// SPDX-License-Identifier: Apache-2.0
/**
 * Whiteboard contracts of the agent's HTTP endpoint: health checks behind {@code /healthz} and {@code /readyz},
 * sections of the {@code /status} document, and extra endpoints such as {@code /metrics}.
 * Register implementations as OSGi services; the health bundle picks them up and drops them when they go.
 *
 * @since 1.0
 */
@Export
@Version("1.0.0")
package io.rdmanode.health;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
