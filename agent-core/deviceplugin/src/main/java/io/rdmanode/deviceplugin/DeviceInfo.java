// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What the layer writes in a device's NPWG device-info file (Device Information Specification 1.1.0, type
 * {@code pci}), which Multus hands to the CNI of the pod holding the device ({@link ResourcePool#deviceInfo}).
 *
 * @param pciAddress   the device's PCI address, e.g. {@code 0000:3b:00.2}
 * @param pfPciAddress its physical function's address, for a VF
 * @param rdmaDevices  its RDMA devices, e.g. {@code mlx5_2}; empty when it has none
 * @since 2.1
 */
public record DeviceInfo(String pciAddress, Optional<String> pfPciAddress, List<String> rdmaDevices) {

    public DeviceInfo {
        Objects.requireNonNull(pciAddress, "pciAddress");
        Objects.requireNonNull(pfPciAddress, "pfPciAddress");
        rdmaDevices = List.copyOf(rdmaDevices);
    }
}
