// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import java.util.List;

/** Agent figures given by the test. */
record FixedFigures(List<BundleFigure> bundles) implements AgentFigures {
}
