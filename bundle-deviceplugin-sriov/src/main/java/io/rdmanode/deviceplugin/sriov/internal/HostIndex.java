// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetDevice;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.RdmaDevice;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A snapshot with its PCI functions, RDMA devices and netdevs by key. The snapshot's own look-ups scan its
 * lists, which costs a million comparisons per assignment on a 1,024-VF host; this is built once per snapshot.
 */
public final class HostIndex {

    private final HostSnapshot snapshot;
    private final Map<PciAddress, PciFunction> pci = new HashMap<>();
    private final Map<String, RdmaDevice> devices = new HashMap<>();
    private final Map<String, NetDevice> netdevs = new HashMap<>();

    public HostIndex(HostSnapshot snapshot) {
        this.snapshot = snapshot;
        snapshot.pciFunctions().forEach(f -> pci.put(f.address(), f));
        snapshot.devices().forEach(d -> devices.put(d.name(), d));
        snapshot.netDevices().forEach(n -> netdevs.put(n.name(), n));
    }

    public HostSnapshot snapshot() {
        return snapshot;
    }

    public Optional<PciFunction> pciFunction(PciAddress address) {
        return Optional.ofNullable(pci.get(address));
    }

    public Optional<RdmaDevice> device(String name) {
        return Optional.ofNullable(devices.get(name));
    }

    public Optional<NetDevice> netDevice(String name) {
        return Optional.ofNullable(netdevs.get(name));
    }
}
