// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import java.util.List;

/** What the agent-level metrics are made of: the framework's bundles. */
interface AgentFigures {

    /** @param bundle the {@code Agent-Bundle} header, or the symbolic name for third-party bundles */
    record BundleFigure(String bundle, String symbolicName, String version, String state) { }

    List<BundleFigure> bundles();
}
