// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import io.rdmanode.discovery.HostSnapshot;
import java.util.List;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Pools a plugin bundle computes together, served by the layer ({@link DevicePluginLayer#serve(PoolSet,
 * io.rdmanode.discovery.RdmaDiscovery)}): what one pool holds may depend on the others (SR-IOV: a VF goes to the
 * first pool that matches it). Before the layer asks each member for its view ({@link ResourcePool#compute}),
 * it calls {@link #prepare} once with every member, so the set computes the assignment as a whole and each
 * member's {@code compute} reads its part. A pool served alone is a set of one with nothing to prepare.
 *
 * @since 2.1
 */
@ConsumerType
public interface PoolSet {

    /** A set whose members are independent: nothing to prepare. */
    PoolSet INDEPENDENT = (host, members) -> { };

    /**
     * Prepares the members' next views on {@code host}: on every discovery change, membership change (a pool
     * served or stopped) and refresh, one call at a time, on the thread that then calls each member's
     * {@link ResourcePool#compute} with the same snapshot. Must not block.
     *
     * @param members the pools being served, in the order they were added (including one about to be served,
     *                not one that stopped)
     */
    void prepare(HostSnapshot host, List<ResourcePool> members);
}
