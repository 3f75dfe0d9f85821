// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import io.rdmanode.discovery.HostSnapshot;
import java.util.List;
import java.util.Map;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The node's ownership table, an OSGi service of the device-plugin layer: every registered {@link DeviceOwner}
 * is asked what its pools would hold, and {@link Ownership#conflicts} says which pools overlap. Used by the
 * layer's configuration validator at live reload, and by the layer before it serves a pool.
 *
 * @since 1.1
 */
@ProviderType
public interface DeviceOwnership {

    /**
     * The claims of every owner for the proposed configurations on {@code host}, in owner registration and
     * configuration order.
     *
     * @param configurations the whole proposal ({@code pid} or {@code factoryPid~name} to properties)
     */
    List<Ownership.Claim> claims(Map<String, Map<String, Object>> configurations, HostSnapshot host);

    /** The overlaps among {@link #claims}. */
    default List<Ownership.Conflict> conflicts(Map<String, Map<String, Object>> configurations, HostSnapshot host) {
        return Ownership.conflicts(claims(configurations, host));
    }
}
