// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Receives topology changes, registered through {@link RdmaDiscovery#addListener} (the one channel; there
 * is no whiteboard). Calls come from one discovery thread in revision order; a listener must
 * return quickly (hand work to its own executor). It is not called for the state it found at registration:
 * read {@link RdmaDiscovery#snapshot()} for that.
 *
 * @since 1.0
 */
@ConsumerType
public interface RdmaTopologyListener {

    /** {@code snapshot.revision() == diff.toRevision()}; the diff is never empty. */
    void topologyChanged(HostSnapshot snapshot, TopologyDiff diff);
}
