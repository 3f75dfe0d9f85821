// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The host's RDMA topology at one moment. Immutable; lists are sorted by name or address. The revision grows
 * by one with every change a listener is told about; equal revisions mean equal content.
 *
 * @param rdmaCm     {@code /dev/infiniband/rdma_cm}, present or absent with the reason
 * @param problems   objects that could not be read, each with a message naming the path
 * @since 1.0
 */
public record HostSnapshot(long revision, Instant takenAt, BackendStatus backend, List<RdmaDevice> devices,
                           List<PciFunction> pciFunctions, List<NetDevice> netDevices, CharDevice rdmaCm,
                           NetnsMode netnsMode, List<Problem> problems) {

    public HostSnapshot {
        devices = List.copyOf(devices);
        pciFunctions = List.copyOf(pciFunctions);
        netDevices = List.copyOf(netDevices);
        problems = List.copyOf(problems);
    }

    public Optional<RdmaDevice> device(String name) {
        return devices.stream().filter(d -> d.name().equals(name)).findFirst();
    }

    public Optional<PciFunction> pciFunction(PciAddress address) {
        return pciFunctions.stream().filter(p -> p.address().equals(address)).findFirst();
    }

    public Optional<NetDevice> netDevice(String name) {
        return netDevices.stream().filter(n -> n.name().equals(name)).findFirst();
    }

    /**
     * The PCI function a device's hardware facts (vendor, device id, driver, NUMA node) come from: its own, or
     * for a soft device (rxe, siw) its parent netdev's. Empty for a soft device on a virtual netdev (veth).
     *
     * @since 1.1
     */
    public Optional<PciFunction> pciFunctionOf(RdmaDevice device) {
        return device.pciFunction().or(device::parentPciFunction).flatMap(this::pciFunction);
    }

    /** A copy with another revision and time, same content. */
    public HostSnapshot withRevision(long newRevision, Instant at) {
        return new HostSnapshot(newRevision, at, backend, devices, pciFunctions, netDevices, rdmaCm, netnsMode,
                problems);
    }
}
