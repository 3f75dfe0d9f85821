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
                LinkType.ofArphrd(SysfsFiles.requiredInt(dir.resolve("type"))), pci, Optional.empty(),
                bondMaster(dir), bondMembers(dir));
    }

    /** {@code master} links to the bond (or bridge, team, VRF) above; only a bond counts here. */
    private Optional<String> bondMaster(Path dir) {
        return SysfsFiles.optionalLink(dir.resolve("master")).map(p -> p.getFileName().toString())
                .filter(m -> Files.isDirectory(root.classNet().resolve(m).resolve("bonding")));
    }

    /**
     * A bond's members ({@code Documentation/networking/bonding.rst}: {@code bonding/slaves}, space-separated);
     * a tree without that file (some recordings) still has the {@code lower_<member>} links of every stacked
     * device ({@code sysfs-class-net}).
     */
    private static List<String> bondMembers(Path dir) {
        if (!Files.isDirectory(dir.resolve("bonding"))) {
            return List.of();
        }
        List<String> slaves = SysfsFiles.optional(dir.resolve("bonding/slaves")).stream()
                .flatMap(line -> java.util.Arrays.stream(line.trim().split("\\s+"))).filter(n -> !n.isEmpty())
                .sorted().toList();
        if (!slaves.isEmpty()) {
            return slaves;
        }
        return SysfsFiles.list(dir).stream().filter(n -> n.startsWith("lower_")).map(n -> n.substring(6)).sorted()
                .toList();
    }
}
