// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import io.rdmanode.discovery.HostSnapshot;
import java.util.List;
import java.util.Map;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * One kind of device owner on the node, registered as an OSGi service by the bundle that serves it (the shared
 * and SR-IOV device plugins; a DRA driver is one more). It answers, for proposed configurations, which devices
 * each of its pools would hold on a host snapshot, with the same compute function it serves with, so the
 * {@link DeviceOwnership ownership table} can refuse an overlap before the configuration applies.
 *
 * @since 1.1
 */
@ConsumerType
public interface DeviceOwner {

    /** The factory PID whose configurations are this owner's pools. */
    String factoryPid();

    /**
     * What each pool of {@code configurations} would hold on {@code host}.
     *
     * @param configurations this owner's configurations only: {@code factoryPid~name} to properties, as
     *                       ConfigAdmin would receive them
     * @return one claim per pool whose configuration is valid (invalid ones are the bundle validator's to refuse)
     */
    List<Ownership.Claim> claims(Map<String, Map<String, Object>> configurations, HostSnapshot host);
}
