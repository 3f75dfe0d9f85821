// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.RdmaDiscovery;
import java.util.List;
import java.util.Optional;

/** {@link DeviceResolver} over the discovery service's latest snapshot (no I/O on the request path). */
final class DiscoveryResolver implements DeviceResolver {

    private final RdmaDiscovery discovery;

    DiscoveryResolver(RdmaDiscovery discovery) {
        this.discovery = discovery;
    }

    @Override
    public Optional<List<String>> rdmaDevices(String pciAddress) {
        Optional<PciAddress> a = PciAddress.parse(pciAddress);
        return a.flatMap(discovery.snapshot()::pciFunction).map(PciFunction::rdmaDevices);
    }

    @Override
    public Optional<String> notReady() {
        HostSnapshot s = discovery.snapshot();
        return s.backend().unavailableReason().map(r -> "discovery backend " + s.backend().backend()
                + " unavailable: " + r);
    }
}
