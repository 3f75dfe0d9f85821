// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import java.util.List;
import java.util.Map;

/** What the agent-level metrics are made of, from the framework and the {@code /status} sections. */
interface AgentFigures {

    /** @param bundle the {@code Agent-Bundle} header, or the symbolic name for third-party bundles */
    record BundleFigure(String bundle, String symbolicName, String version, String state) { }

    List<BundleFigure> bundles();

    /** {@code StatusSection.status()} by section name, read on the scrape thread. */
    Map<String, Object> statusSections();
}
