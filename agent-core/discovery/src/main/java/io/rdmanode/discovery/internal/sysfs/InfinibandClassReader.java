// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import io.rdmanode.discovery.DiscoveryException;
import io.rdmanode.discovery.Gid;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaDevice.NodeType;
import io.rdmanode.discovery.RdmaPort;
import io.rdmanode.discovery.RdmaPort.LinkLayer;
import io.rdmanode.discovery.RdmaPort.PhysState;
import io.rdmanode.discovery.RdmaPort.PortState;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one RDMA device from {@code /sys/class/infiniband/<name>} as documented in
 * {@code Documentation/ABI/stable/sysfs-class-infiniband}. Required: {@code node_type} and, per port,
 * {@code state}, {@code phys_state}, {@code link_layer}; everything else is optional.
 */
public final class InfinibandClassReader {

    /** {@code node_type}, {@code ports/N/state}, {@code ports/N/phys_state}: "4: ACTIVE". */
    static final Pattern CODED = Pattern.compile("(\\d{1,9}): ?(.*)");
    private static final Pattern ZERO_GID = Pattern.compile("[0:]+");

    private final SysfsRoot root;
    private final CharDeviceLocator charDevices;

    InfinibandClassReader(SysfsRoot root, CharDeviceLocator charDevices) {
        this.root = root;
        this.charDevices = charDevices;
    }

    /** A reader of {@code root}'s {@code class/infiniband}, character devices looked up under its {@code dev}. */
    public static InfinibandClassReader of(SysfsRoot root) {
        return new InfinibandClassReader(root, new CharDeviceLocator(root));
    }

    /** {@code name} as the tree shows it now; empty when the tree has no such device. */
    public static Optional<RdmaDevice> readIfPresent(SysfsRoot root, String name) {
        InfinibandClassReader reader = of(root);
        return reader.exists(name) ? Optional.of(reader.read(name)) : Optional.empty();
    }

    public List<String> deviceNames() {
        return SysfsFiles.list(root.classInfiniband());
    }

    public boolean exists(String name) {
        return Files.exists(root.classInfiniband().resolve(name), LinkOption.NOFOLLOW_LINKS);
    }

    public RdmaDevice read(String name) {
        Path dir = root.classInfiniband().resolve(name);
        SysfsFiles.requireExists(dir);                           // a dangling class link fails here, named
        Optional<Path> parent = SysfsFiles.optionalLink(dir.resolve("device"));
        Optional<PciAddress> pci = parent.flatMap(p -> PciAddress.parse(p.getFileName().toString()));
        Optional<String> driver = parent.flatMap(p -> SysfsFiles.optionalLink(p.resolve("driver")))
                .map(d -> d.getFileName().toString());
        Path nodeType = dir.resolve("node_type");
        List<RdmaPort> ports = new ArrayList<>();
        Path portsDir = dir.resolve("ports");
        for (String port : SysfsFiles.list(portsDir)) {
            ports.add(readPort(name, portsDir.resolve(port), parent));
        }
        if (ports.isEmpty()) {
            throw new DiscoveryException("cannot read ports of", portsDir, "no port directories");
        }
        return new RdmaDevice(name, NodeType.ofCode(codeOf(nodeType, SysfsFiles.required(nodeType))),
                SysfsFiles.optionalNonBlank(dir.resolve("node_guid")),
                SysfsFiles.optionalNonBlank(dir.resolve("fw_ver")), driver, pci,
                SysfsFiles.optionalNonBlank(dir.resolve("parent")), ports, charDevices.uverbs(name, parent),
                SysfsFiles.listFiles(dir.resolve("hw_counters")));
    }

    private RdmaPort readPort(String ibdev, Path dir, Optional<Path> parent) {
        String dirName = dir.getFileName().toString();
        int number = SysfsFiles.parseInt(dir, dirName);
        Path state = dir.resolve("state");
        Path phys = dir.resolve("phys_state");
        Path layerFile = dir.resolve("link_layer");
        LinkLayer layer = linkLayer(layerFile, SysfsFiles.required(layerFile));
        List<Gid> gids = readGids(dir, layer);
        Optional<String> netdev = gids.stream().filter(g -> g.index() == 0).findFirst().flatMap(Gid::netdev);
        return new RdmaPort(number, PortState.ofCode(codeOf(state, SysfsFiles.required(state))),
                PhysState.ofCode(codeOf(phys, SysfsFiles.required(phys))), layer,
                SysfsFiles.optionalNonBlank(dir.resolve("rate")), SysfsFiles.optionalInt(dir.resolve("lid")),
                gids, netdev, SysfsFiles.listFiles(dir.resolve("counters")),
                SysfsFiles.listFiles(dir.resolve("hw_counters")), charDevices.umad(ibdev, number, parent),
                charDevices.issm(ibdev, number, parent));
    }

    /**
     * Reads populated GIDs only: the kernel answers EINVAL for {@code gid_attrs/types/I} of an empty entry, so
     * the attributes are read only for non-zero GIDs.
     */
    private static List<Gid> readGids(Path port, LinkLayer layer) {
        Path gidsDir = port.resolve("gids");
        List<String> names = SysfsFiles.list(gidsDir);
        List<Gid> gids = new ArrayList<>();
        for (String index : names) {
            Path gidFile = gidsDir.resolve(index);
            String value = SysfsFiles.required(gidFile);
            if (ZERO_GID.matcher(value).matches()) {
                continue;
            }
            int i = SysfsFiles.parseInt(gidFile, index);
            Optional<String> type = SysfsFiles.optional(port.resolve("gid_attrs/types/" + index));
            Optional<String> ndev = SysfsFiles.optionalNonBlank(port.resolve("gid_attrs/ndevs/" + index));
            gids.add(new Gid(i, value, gidType(type, layer), ndev));
        }
        gids.sort((a, b) -> Integer.compare(a.index(), b.index()));
        return gids;
    }

    static Gid.Type gidType(Optional<String> type, LinkLayer layer) {
        if (type.isEmpty()) {
            return layer == LinkLayer.INFINIBAND ? Gid.Type.IB : Gid.Type.UNKNOWN;
        }
        return switch (type.get()) {
            case "IB/RoCE v1" -> layer == LinkLayer.INFINIBAND ? Gid.Type.IB : Gid.Type.ROCE_V1;
            case "RoCE v2" -> Gid.Type.ROCE_V2;
            default -> Gid.Type.UNKNOWN;
        };
    }

    static LinkLayer linkLayer(Path file, String value) {
        return switch (value) {
            case "InfiniBand" -> LinkLayer.INFINIBAND;
            case "Ethernet" -> LinkLayer.ETHERNET;
            default -> throw new DiscoveryException("cannot parse", file,
                    "expected InfiniBand or Ethernet, got '" + value + "'");
        };
    }

    static int codeOf(Path file, String value) {
        Matcher m = CODED.matcher(value);
        if (!m.matches()) {
            throw new DiscoveryException("cannot parse", file, "expected '<code>: <NAME>', got '" + value + "'");
        }
        return Integer.parseInt(m.group(1));
    }
}
