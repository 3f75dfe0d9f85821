// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import io.rdmanode.discovery.PciAddress;
import java.util.Objects;
import java.util.Optional;

/**
 * The PCI function behind a candidate. Ids are lower-case hex without {@code 0x}.
 *
 * @param driver           bound driver ({@code mlx5_core}, {@code vfio-pci}); empty when unbound
 * @param vfIndex          VF only: its index under the PF (the I of {@code virtfnI})
 * @param physicalFunction VF only: the PF's address
 * @param pfNetdevs        VF only: the PF's netdevs (what {@code pfNames} matches), sorted
 * @param numaNode         empty when unknown ({@code numa_node} missing or -1)
 * @param iommuGroup       empty without an IOMMU
 * @since 1.0
 */
public record PciInfo(PciAddress address, String vendor, String device, Optional<String> driver,
                      Optional<Integer> vfIndex, Optional<PciAddress> physicalFunction,
                      java.util.List<String> pfNetdevs, Optional<Integer> numaNode, Optional<String> iommuGroup) {

    public PciInfo {
        Objects.requireNonNull(address, "address");
        pfNetdevs = java.util.List.copyOf(pfNetdevs);
    }

    public boolean isVirtualFunction() {
        return physicalFunction.isPresent();
    }
}
