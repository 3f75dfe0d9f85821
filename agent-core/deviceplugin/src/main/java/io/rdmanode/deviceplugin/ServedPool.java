// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A {@link ResourcePool} being served: its server on the device-plugin host and its discovery subscription.
 * Thread-safe.
 *
 * @since 1.0
 */
@ProviderType
public interface ServedPool extends AutoCloseable {

    ResourcePool pool();

    /** The current view (never null). */
    PoolView view();

    /** Whether kubelet accepted the latest registration. */
    boolean registered();

    PoolStatus status();

    /** Recomputes the view from discovery's latest snapshot now (normally done on topology changes). */
    void refresh();

    /** Stops listening, stops serving (socket deleted), then calls {@link ResourcePool#stopped()}. Idempotent. */
    @Override
    void close();
}
