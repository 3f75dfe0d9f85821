// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import io.rdmanode.discovery.DiscoveryException;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.SriovInfo;
import io.rdmanode.discovery.SriovInfo.VirtualFunction;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PCI functions from {@code /sys/bus/pci/devices/<bdf>} ({@code Documentation/ABI/testing/sysfs-bus-pci}).
 * Only network-class functions (class 0x02xxxx) and functions with RDMA devices are of interest. Required:
 * {@code vendor}, {@code device}, {@code class}; SR-IOV attributes only on PFs, {@code physfn} only on VFs.
 */
public final class PciBusReader {

    private static final Pattern VIRTFN = Pattern.compile("virtfn(\\d{1,5})");
    private static final Pattern HEX_ID = Pattern.compile("0x([0-9a-f]{4,6})");

    private final SysfsRoot root;
    private final Map<PciAddress, Map<PciAddress, Integer>> vfIndexes = new java.util.concurrent.ConcurrentHashMap<>();

    PciBusReader(SysfsRoot root) {
        this.root = root;
    }

    /** All function addresses on the bus; entries whose name is not a BDF are skipped. */
    public List<PciAddress> addresses() {
        List<PciAddress> out = new ArrayList<>();
        for (String name : SysfsFiles.list(root.busPciDevices())) {
            PciAddress.parse(name).ifPresent(out::add);
        }
        return out;
    }

    public boolean exists(PciAddress address) {
        return Files.exists(dir(address), LinkOption.NOFOLLOW_LINKS);
    }

    /** Whether discovery should describe this function: network class, or it carries RDMA devices. */
    public boolean isOfInterest(PciAddress address) {
        Path dir = dir(address);
        Optional<String> cls = SysfsFiles.optional(dir.resolve("class"));
        return cls.map(c -> c.startsWith("0x02")).orElse(false) || Files.isDirectory(dir.resolve("infiniband"));
    }

    public PciFunction read(PciAddress address) {
        Path dir = dir(address);
        SysfsFiles.requireExists(dir);
        Optional<PciAddress> physfn = SysfsFiles.optionalLink(dir.resolve("physfn")).map(p -> bdf(dir.resolve("physfn"), p));
        Optional<Integer> vfIndex = physfn.flatMap(pf -> vfIndexOf(pf, address));
        return new PciFunction(address, hexId(dir.resolve("vendor")), hexId(dir.resolve("device")),
                optionalHexId(dir.resolve("subsystem_vendor")), optionalHexId(dir.resolve("subsystem_device")),
                hexId(dir.resolve("class")),
                SysfsFiles.optionalLink(dir.resolve("driver")).map(p -> p.getFileName().toString()),
                SysfsFiles.optionalInt(dir.resolve("numa_node")).filter(n -> n >= 0),
                SysfsFiles.optionalLink(dir.resolve("iommu_group")).map(p -> p.getFileName().toString()),
                readSriov(dir), physfn, vfIndex, SysfsFiles.list(dir.resolve("infiniband")),
                SysfsFiles.list(dir.resolve("net")));
    }

    private Optional<SriovInfo> readSriov(Path dir) {
        Optional<Integer> total = SysfsFiles.optionalInt(dir.resolve("sriov_totalvfs"));
        if (total.isEmpty()) {
            return Optional.empty();
        }
        int num = SysfsFiles.requiredInt(dir.resolve("sriov_numvfs"));
        List<VirtualFunction> vfs = new ArrayList<>();
        for (String name : SysfsFiles.list(dir)) {
            Matcher m = VIRTFN.matcher(name);
            if (m.matches()) {
                Path link = dir.resolve(name);
                vfs.add(new VirtualFunction(Integer.parseInt(m.group(1)), bdf(link, SysfsFiles.optionalLink(link).orElseThrow())));
            }
        }
        vfs.sort((a, b) -> Integer.compare(a.index(), b.index()));
        return Optional.of(new SriovInfo(total.get(), num, vfs));
    }

    /** VF index = the I whose {@code physfn/virtfnI} points at the VF; each PF's links are read once per reader. */
    private Optional<Integer> vfIndexOf(PciAddress pf, PciAddress vf) {
        Map<PciAddress, Integer> indexes = vfIndexes.computeIfAbsent(pf, p -> {
            Map<PciAddress, Integer> m = new HashMap<>();
            readSriov(dir(p)).ifPresent(s -> s.virtualFunctions().forEach(v -> m.put(v.address(), v.index())));
            return m;
        });
        return Optional.ofNullable(indexes.get(vf));
    }

    Path dir(PciAddress address) {
        return root.busPciDevices().resolve(address.toString());
    }

    static PciAddress bdf(Path link, Path target) {
        String name = target.getFileName().toString();
        return PciAddress.parse(name).orElseThrow(() ->
                new DiscoveryException("cannot parse", link, "link target '" + name + "' is not a PCI address"));
    }

    private static String hexId(Path file) {
        return parseHexId(file, SysfsFiles.required(file));
    }

    private static Optional<String> optionalHexId(Path file) {
        return SysfsFiles.optional(file).map(v -> parseHexId(file, v));
    }

    static String parseHexId(Path file, String value) {
        Matcher m = HEX_ID.matcher(value);
        if (!m.matches()) {
            throw new DiscoveryException("cannot parse", file, "expected a 0x-prefixed hex id, got '" + value + "'");
        }
        return m.group(1);
    }
}
