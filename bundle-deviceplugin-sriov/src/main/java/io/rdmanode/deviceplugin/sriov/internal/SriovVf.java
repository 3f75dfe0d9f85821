// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.deviceplugin.CandidateDevice;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.Granularity;
import io.rdmanode.deviceplugin.NetdevRef;
import io.rdmanode.deviceplugin.PciInfo;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.RdmaDevice;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * One SR-IOV virtual function as the plugin sees it: the device-plugin layer's VF candidate (selectors run on
 * it) with what the plugin reads from it spelled out: its PCI address (the device ID kubelet gets), its PF and
 * index under it, NUMA node, driver, IOMMU group, RDMA device and netdevs visible in the agent's namespace.
 *
 * @param rdmaDevices the RDMA device on the host; empty when none or moved to a pod netns
 */
public record SriovVf(PciAddress address, PciAddress pf, int index, List<String> pfNetdevs, String vendor,
                      String device, Optional<String> driver, Optional<Integer> numaNode,
                      Optional<String> iommuGroup, List<String> rdmaDevices, List<String> netDevices,
                      CandidateDevice candidate) {

    public SriovVf {
        pfNetdevs = List.copyOf(pfNetdevs);
        rdmaDevices = List.copyOf(rdmaDevices);
        netDevices = List.copyOf(netDevices);
    }

    /** The device ID: the PCI address, as the peer and Multus's {@code deviceID} use it. */
    public String id() {
        return address.toString();
    }

    public boolean vfio() {
        return driver.filter("vfio-pci"::equals).isPresent();
    }

    /** Every VF of {@code host} with a PF, by PCI address. */
    public static List<SriovVf> all(DevicePluginLayer layer, HostSnapshot host) {
        return layer.candidates(host, Granularity.VF).stream().map(SriovVf::of).flatMap(Optional::stream)
                .sorted(Comparator.comparing(SriovVf::address)).toList();
    }

    static Optional<SriovVf> of(CandidateDevice c) {
        if (c.pci().isEmpty() || c.pci().get().physicalFunction().isEmpty()) {
            return Optional.empty();
        }
        PciInfo p = c.pci().get();
        List<String> netdevs = c.netdevs().stream().filter(n -> n.role() == NetdevRef.Role.FUNCTION)
                .map(NetdevRef::name).toList();
        return Optional.of(new SriovVf(p.address(), p.physicalFunction().get(), p.vfIndex().orElse(-1),
                p.pfNetdevs(), p.vendor(), p.device(), p.driver(), p.numaNode(), p.iommuGroup(),
                c.rdma().map(RdmaDevice::name).stream().toList(), netdevs, c));
    }
}
