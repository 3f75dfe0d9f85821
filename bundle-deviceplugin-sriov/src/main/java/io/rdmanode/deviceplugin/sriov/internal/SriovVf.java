// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.SriovInfo;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * One SR-IOV virtual function as the plugin sees it: its PCI address (the device ID kubelet gets), its PF and
 * index under it, NUMA node, driver, IOMMU group and the RDMA devices and netdevs visible in the agent's
 * namespace. Built from discovery's {@link PciFunction}s (PF {@code virtfnI} links, VF {@code physfn}).
 *
 * @param pfNetdevs  netdevs of the PF (for {@code pfNames} selectors), sorted
 * @param rdmaDevices RDMA devices under the VF's {@code infiniband/}; empty when none or moved to a pod netns
 */
public record SriovVf(PciAddress address, PciAddress pf, int index, List<String> pfNetdevs, String vendor,
                      String device, Optional<String> driver, Optional<Integer> numaNode,
                      Optional<String> iommuGroup, List<String> rdmaDevices, List<String> netDevices) {

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

    /** Every VF of every SR-IOV PF on {@code host}, by PCI address. */
    public static List<SriovVf> all(HostSnapshot host) {
        return all(new HostIndex(host));
    }

    static List<SriovVf> all(HostIndex host) {
        List<SriovVf> vfs = new ArrayList<>();
        for (PciFunction pf : host.snapshot().pciFunctions()) {
            if (pf.sriov().isEmpty()) {
                continue;
            }
            for (SriovInfo.VirtualFunction v : pf.sriov().get().virtualFunctions()) {
                host.pciFunction(v.address()).ifPresent(fn -> vfs.add(of(pf, v.index(), fn)));
            }
        }
        vfs.sort(Comparator.comparing(SriovVf::address));
        return List.copyOf(vfs);
    }

    static SriovVf of(PciFunction pf, int index, PciFunction vf) {
        return new SriovVf(vf.address(), pf.address(), index, pf.netDevices(), vf.vendor(), vf.device(),
                vf.driver(), vf.numaNode(), vf.iommuGroup(), vf.rdmaDevices(), vf.netDevices());
    }
}
