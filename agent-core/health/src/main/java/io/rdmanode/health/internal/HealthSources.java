// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.rdmanode.health.HealthCheck;
import java.util.List;

/**
 * What the endpoint reports, read afresh on every request. In the agent it comes from the OSGi framework and
 * SCR ({@link OsgiHealthSources}); tests hand in fixed values, so the HTTP server runs without a framework.
 * Implementations are called from the request threads concurrently and must not block.
 */
interface HealthSources {

    List<HealthCheck> checks();

    List<BundleInfo> bundles();

    /** Components of the agent's own bundles (those with an {@code Agent-Bundle} header). */
    List<ComponentInfo> components();

    AgentInfo agent();
}
