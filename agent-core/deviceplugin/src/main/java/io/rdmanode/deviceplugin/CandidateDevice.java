// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import io.rdmanode.discovery.RdmaDevice;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One device a pool may take, as the selectors and Allocate see it, built from a discovery
 * {@link io.rdmanode.discovery.HostSnapshot} by {@link DevicePluginLayer#candidates}.
 *
 * @param key         stable name: the RDMA device name ({@link Granularity#HCA}) or the PCI address
 * @param pci         the PCI function; empty for soft RDMA devices without one (their parent netdev's function
 *                    is used when discovery models it)
 * @param rdma        the RDMA device with its ports, link layers and states; empty when not visible here
 * @param netdevs     function, port, bond-member and parent netdevs, without duplicates, in that order
 * @param deviceFiles uverbs, umad and issm of the RDMA device (issm only where present), not {@code rdma_cm}
 *                    (one per host: see {@link DevicePluginLayer#rdmaCm})
 * @param health      whether the device can be used now (uverbs present, a port ACTIVE)
 * @since 1.0
 */
public record CandidateDevice(Granularity granularity, String key, Optional<PciInfo> pci,
                              Optional<RdmaDevice> rdma, RdmaPresence rdmaPresence, List<NetdevRef> netdevs,
                              List<DeviceFile> deviceFiles, DeviceHealth health) {

    public CandidateDevice {
        Objects.requireNonNull(granularity, "granularity");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(pci, "pci");
        Objects.requireNonNull(rdma, "rdma");
        Objects.requireNonNull(rdmaPresence, "rdmaPresence");
        Objects.requireNonNull(health, "health");
        netdevs = List.copyOf(netdevs);
        deviceFiles = List.copyOf(deviceFiles);
    }

    public Optional<Integer> numaNode() {
        return pci.flatMap(PciInfo::numaNode);
    }

    public List<String> netdevNames() {
        return netdevs.stream().map(NetdevRef::name).toList();
    }

    public boolean isRdma() {
        return rdmaPresence != RdmaPresence.NONE;
    }
}
