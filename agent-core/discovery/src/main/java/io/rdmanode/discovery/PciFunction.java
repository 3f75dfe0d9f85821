// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.util.List;
import java.util.Optional;

/**
 * A network-class PCI function or one with RDMA devices ({@code /sys/bus/pci/devices/<bdf>},
 * {@code sysfs-bus-pci}). Ids are lower-case hex without {@code 0x} ({@code 15b3}, {@code 1017}), as the
 * peers' selectors compare them.
 *
 * @param pciClass        6 hex digits, e.g. {@code 020000}
 * @param driver          bound driver, empty when unbound
 * @param numaNode        empty when the file is missing or reads -1
 * @param iommuGroup      the {@code iommu_group} link's target name, empty without an IOMMU
 * @param sriov           present on SR-IOV capable PFs
 * @param physicalFunction VF only: its PF
 * @param vfIndex         VF only: its index under the PF
 * @param rdmaDevices     names under {@code infiniband/}, sorted
 * @param netDevices      names under {@code net/}, sorted
 * @since 1.0
 */
public record PciFunction(PciAddress address, String vendor, String device, Optional<String> subsystemVendor,
                          Optional<String> subsystemDevice, String pciClass, Optional<String> driver,
                          Optional<Integer> numaNode, Optional<String> iommuGroup, Optional<SriovInfo> sriov,
                          Optional<PciAddress> physicalFunction, Optional<Integer> vfIndex,
                          List<String> rdmaDevices, List<String> netDevices) {

    public PciFunction {
        rdmaDevices = List.copyOf(rdmaDevices);
        netDevices = List.copyOf(netDevices);
    }

    public boolean isVirtualFunction() {
        return physicalFunction.isPresent();
    }
}
