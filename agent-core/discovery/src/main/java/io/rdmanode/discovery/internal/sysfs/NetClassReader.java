// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import io.rdmanode.discovery.NetDevice;
import io.rdmanode.discovery.NetDevice.LinkType;
import io.rdmanode.discovery.PciAddress;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Reads network interfaces from {@code /sys/class/net/<name>} ({@code Documentation/ABI/testing/sysfs-class-net}).
 * Required: {@code ifindex}, {@code type}. The RDMA device is filled in later, from the whole topology.
 */
public final class NetClassReader {

    private final SysfsRoot root;

    NetClassReader(SysfsRoot root) {
        this.root = root;
    }

    public List<String> names() {
        return SysfsFiles.list(root.classNet()).stream().filter(n -> !n.startsWith("bonding_masters")).toList();
    }

    public boolean exists(String name) {
        return Files.exists(root.classNet().resolve(name), LinkOption.NOFOLLOW_LINKS);
    }

    public NetDevice read(String name) {
        Path dir = root.classNet().resolve(name);
        SysfsFiles.requireExists(dir);
        Optional<PciAddress> pci = SysfsFiles.optionalLink(dir.resolve("device"))
                .flatMap(p -> PciAddress.parse(p.getFileName().toString()));
        return new NetDevice(name, SysfsFiles.requiredInt(dir.resolve("ifindex")),
                SysfsFiles.optionalNonBlank(dir.resolve("address")),
                SysfsFiles.optional(dir.resolve("operstate")).orElse("unknown"),
                LinkType.ofArphrd(SysfsFiles.requiredInt(dir.resolve("type"))), pci, Optional.empty());
    }
}
