// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.events;

import io.rdmanode.discovery.HostSnapshot;

/** Lets the benchmark in another package time the diff too. */
public final class TopologyDiffsAccess {

    private TopologyDiffsAccess() {
    }

    public static int portsChanged(HostSnapshot before, HostSnapshot after) {
        return TopologyDiffs.between(before, after, before.revision() + 1).portsChanged().size();
    }
}
