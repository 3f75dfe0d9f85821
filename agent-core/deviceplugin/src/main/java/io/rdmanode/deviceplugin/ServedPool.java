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

    /**
     * Stops listening, stops serving (socket deleted), then calls {@link ResourcePool#stopped()}. Removes no CDI
     * spec and no device-info file: pods that hold the pool's devices read them while they run, and the next
     * instance serves the pool again. Idempotent.
     */
    @Override
    void close();

    /**
     * Stops as {@link #close}, because the pool's configuration was deleted (or changed so that this pool no longer
     * has what it had, e.g. CDI turned off): its CDI specs and the device-info files of its devices go once no
     * running container holds a device of its resource (at once when none does), unless a pool of the same
     * resource takes them again.
     *
     * @since 2.2
     */
    void retire();

    /**
     * Stops as a plugin component's deactivation asks: {@link #retire} when SCR deactivates it because its
     * configuration was modified or deleted (a modified pool starts again at once and takes back what it still
     * has), {@link #close} for any other reason (bundle stop or update, framework stop, a reference gone).
     *
     * @param deactivationReason SCR's code, {@code ComponentConstants.DEACTIVATION_REASON_*}
     * @since 2.2
     */
    default void stop(int deactivationReason) {
        if (deactivationReason == CONFIGURATION_MODIFIED || deactivationReason == CONFIGURATION_DELETED) {
            retire();
        } else {
            close();
        }
    }

    /** {@code ComponentConstants.DEACTIVATION_REASON_CONFIGURATION_MODIFIED} (DS 1.1). */
    int CONFIGURATION_MODIFIED = 3;
    /** {@code ComponentConstants.DEACTIVATION_REASON_CONFIGURATION_DELETED} (DS 1.1). */
    int CONFIGURATION_DELETED = 4;
}
