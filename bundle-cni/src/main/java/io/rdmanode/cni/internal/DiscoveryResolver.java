// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaDiscovery;
import java.util.List;
import java.util.Optional;

/**
 * {@link DeviceResolver} over the discovery service's latest snapshot (no I/O on the request path). A PCI
 * function with no RDMA device of its own resolves to the soft devices (Soft-RoCE rxe, Soft-iWARP siw) running
 * on its netdev, so that a VF without an RDMA driver but with rxe on it gets the kernel's precise answer (such
 * devices cannot change namespace) instead of "no RDMA device".
 */
final class DiscoveryResolver implements DeviceResolver {

    private final RdmaDiscovery discovery;

    DiscoveryResolver(RdmaDiscovery discovery) {
        this.discovery = discovery;
    }

    @Override
    public Optional<List<String>> rdmaDevices(String pciAddress) {
        Optional<PciAddress> a = PciAddress.parse(pciAddress);
        HostSnapshot s = discovery.snapshot();
        return a.flatMap(s::pciFunction).map(f -> f.rdmaDevices().isEmpty() ? softDevicesOn(s, f)
                : f.rdmaDevices());
    }

    private static List<String> softDevicesOn(HostSnapshot s, PciFunction f) {
        return s.devices().stream().filter(d -> d.pciFunction().isEmpty()
                && d.parentPciFunction().filter(f.address()::equals).isPresent()).map(RdmaDevice::name).toList();
    }

    @Override
    public Optional<String> driver(String rdmaDevice) {
        return discovery.snapshot().device(rdmaDevice).flatMap(d -> d.driver().or(() -> d.parentNetdev().map(n ->
                d.nodeType() == RdmaDevice.NodeType.RNIC ? "siw (Soft-iWARP on " + n + ")"
                        : "rdma_rxe (Soft-RoCE on " + n + ")")));
    }

    @Override
    public Optional<String> notReady() {
        HostSnapshot s = discovery.snapshot();
        return s.backend().unavailableReason().map(r -> "discovery backend " + s.backend().backend()
                + " unavailable: " + r);
    }
}
