// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The one model of the host's RDMA topology. Thread-safe; every method may be called from any thread.
 * Subscribe to changes by registering an {@link RdmaTopologyListener} whiteboard service, or with
 * {@link #addListener(RdmaTopologyListener)} from code that is not a component.
 *
 * @since 1.0
 */
@ProviderType
public interface RdmaDiscovery {

    /** The latest snapshot; never null, never blocks on I/O. Revision 1 is the first full scan. */
    HostSnapshot snapshot();

    /**
     * Re-reads the whole host now, on the calling thread, and returns the resulting snapshot. Listeners are
     * notified (before this returns) when something changed; an unchanged host keeps its revision.
     */
    HostSnapshot rescan();

    /** Adds a listener called after every change, on the discovery's scan thread, never concurrently. */
    void addListener(RdmaTopologyListener listener);

    void removeListener(RdmaTopologyListener listener);
}
