// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

import io.rdmanode.discovery.HostSnapshot;

/**
 * A backend: produces snapshots without a revision (0); the engine numbers them. Called from one thread.
 */
public interface TopologySource {

    /** Reads everything. Per-object failures are {@link HostSnapshot#problems()}, not exceptions. */
    HostSnapshot scan();

    /** Re-reads only what the hints name, reusing the rest of the previous scan; full when hinted so. */
    HostSnapshot update(ScanHints hints);

    /** Short name for logs and /status: {@code sysfs}, {@code verbs}. */
    String name();
}
