// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.probe.internal;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.TopologyDiff;
import io.rdmanode.probe.DiscoveryConsumer;

/** Records what one consumer of the discovery service sees: through its reference and as a listener added to it. */
abstract class RecordingDiscoveryConsumer implements DiscoveryConsumer, RdmaTopologyListener {

    private final RdmaDiscovery discovery;
    private volatile long lastRevision;

    RecordingDiscoveryConsumer(RdmaDiscovery discovery) {
        this.discovery = discovery;
        this.lastRevision = discovery.snapshot().revision();
        discovery.addListener(this);
    }

    final void close() {
        discovery.removeListener(this);
    }

    @Override
    public void topologyChanged(HostSnapshot snapshot, TopologyDiff diff) {
        lastRevision = snapshot.revision();
    }

    @Override
    public RdmaDiscovery discovery() {
        return discovery;
    }

    @Override
    public long lastRevision() {
        return lastRevision;
    }
}
