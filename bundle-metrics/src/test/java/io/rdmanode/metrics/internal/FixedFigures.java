// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import java.util.List;
import java.util.Map;

/** Agent figures given by the test. */
record FixedFigures(List<BundleFigure> bundles, Map<String, Object> statusSections) implements AgentFigures {
}
