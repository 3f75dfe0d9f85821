// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import io.rdmanode.kubelet.DevicePluginHost;
import java.util.List;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A {@link PoolSet} being served: one discovery subscription for every member, each member a {@link ServedPool}
 * (its own extended resource, socket and registration). Adding or stopping a member recomputes every other
 * member first, so a device moves from one pool to another in one step. Thread-safe.
 *
 * @since 2.1
 */
@ProviderType
public interface ServedPoolSet extends AutoCloseable {

    /**
     * Serves {@code pool} as a member: prepares the set with it, computes its first view, starts its server,
     * then recomputes the other members. {@link ServedPool#close()} of the result stops it and recomputes the
     * rest.
     *
     * @throws IllegalArgumentException when the host already serves the pool's resource name; the set is as
     *                                  before
     */
    ServedPool serve(ResourcePool pool, DevicePluginHost host);

    /** The members being served, in the order they were added. */
    List<ServedPool> members();

    /** Recomputes every member from discovery's latest snapshot now (normally done on topology changes). */
    void refresh();

    /** Stops every member, then stops listening to discovery. Idempotent. */
    @Override
    void close();
}
