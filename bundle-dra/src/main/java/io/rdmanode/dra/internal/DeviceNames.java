// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.rdmanode.discovery.PciAddress;
import java.util.Optional;

/**
 * Device names in ResourceSlices: DNS labels derived from the PCI address only, so a device keeps its name across
 * reboots, driver rebinds and RDMA device renames ({@code 0000:3b:00.2} is {@code pci-0000-3b-00-2}).
 */
final class DeviceNames {

    private DeviceNames() {
    }

    static String of(PciAddress address) {
        return String.format("pci-%04x-%02x-%02x-%d", address.domain(), address.bus(), address.device(),
                address.function());
    }

    /** The PCI address a name stands for; empty for a name this driver never publishes. */
    static Optional<PciAddress> parse(String name) {
        if (!name.startsWith("pci-")) {
            return Optional.empty();
        }
        String[] p = name.substring(4).split("-", -1);
        if (p.length != 4) {
            return Optional.empty();
        }
        return PciAddress.parse(p[0] + ":" + p[1] + ":" + p[2] + "." + p[3]).filter(a -> of(a).equals(name));
    }
}
