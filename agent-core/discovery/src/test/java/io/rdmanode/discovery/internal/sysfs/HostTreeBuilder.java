// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes a sysfs + /dev tree in the kernel's layout (real directories under {@code sys/devices}, class and
 * bus entries as relative symlinks), for synthesized recordings and the generated scale host.
 */
final class HostTreeBuilder {

    record GidSpec(int index, String value, String type, String ndev) { }

    record PortSpec(int number, String state, String phys, String linkLayer, String rate, String lid,
                    List<GidSpec> gids, List<String> counters, List<String> hwCounters) { }

    private final Path root;
    private final Path sys;

    HostTreeBuilder(Path root) {
        this.root = root;
        this.sys = root.resolve("sys");
        dir("sys/class/infiniband");
        dir("sys/class/net");
        dir("sys/bus/pci/devices");
        dir("dev/infiniband");
    }

    Path sys() {
        return sys;
    }

    Path pciFunction(String bridge, String bdf, String vendor, String device, String subVendor, String subDevice,
                     String cls, String driver, int numa, int iommuGroup) {
        Path d = sys.resolve("devices/" + bridge + "/" + bdf);
        file(d.resolve("vendor"), vendor);
        file(d.resolve("device"), device);
        file(d.resolve("subsystem_vendor"), subVendor);
        file(d.resolve("subsystem_device"), subDevice);
        file(d.resolve("class"), cls);
        file(d.resolve("numa_node"), Integer.toString(numa));
        if (driver != null) {
            Path drv = sys.resolve("bus/pci/drivers/" + driver);
            mkdirs(drv);
            link(d.resolve("driver"), drv);
        }
        Path group = sys.resolve("kernel/iommu_groups/" + iommuGroup);
        mkdirs(group.resolve("devices"));
        link(d.resolve("iommu_group"), group);
        link(sys.resolve("bus/pci/devices/" + bdf), d);
        return d;
    }

    void sriov(Path pf, int total, List<Path> vfs) {
        file(pf.resolve("sriov_totalvfs"), Integer.toString(total));
        file(pf.resolve("sriov_numvfs"), Integer.toString(vfs.size()));
        file(pf.resolve("sriov_offset"), "2");
        file(pf.resolve("sriov_stride"), "1");
        for (int i = 0; i < vfs.size(); i++) {
            link(pf.resolve("virtfn" + i), vfs.get(i));
            link(vfs.get(i).resolve("physfn"), pf);
        }
    }

    /** An RDMA device under a PCI function, or under devices/virtual when {@code parent} is null. */
    Path rdmaDevice(Path parent, String name, String nodeType, String guid, String fw, String parentNetdev,
                    List<PortSpec> ports, List<String> deviceHwCounters) {
        Path d = parent == null ? sys.resolve("devices/virtual/infiniband/" + name) : parent.resolve("infiniband/" + name);
        file(d.resolve("node_type"), nodeType);
        file(d.resolve("node_guid"), guid);
        file(d.resolve("sys_image_guid"), guid);
        file(d.resolve("fw_ver"), fw);
        file(d.resolve("node_desc"), parent == null ? "rxe" : "node01 " + name);
        if (parentNetdev != null) {
            file(d.resolve("parent"), parentNetdev);
        }
        if (parent != null) {
            link(d.resolve("device"), parent);
            file(d.resolve("hca_type"), "MT4119");
            file(d.resolve("board_id"), "MT_0000000012");
        }
        for (String c : deviceHwCounters) {
            file(d.resolve("hw_counters/" + c), "0");
        }
        for (PortSpec p : ports) {
            port(d.resolve("ports/" + p.number()), p);
        }
        link(sys.resolve("class/infiniband/" + name), d);
        return d;
    }

    private void port(Path p, PortSpec s) {
        file(p.resolve("state"), s.state());
        file(p.resolve("phys_state"), s.phys());
        file(p.resolve("link_layer"), s.linkLayer());
        file(p.resolve("rate"), s.rate());
        file(p.resolve("lid"), s.lid());
        file(p.resolve("sm_lid"), "0x0");
        file(p.resolve("cap_mask"), "0x00010000");
        file(p.resolve("pkeys/0"), "0xffff");
        for (GidSpec g : s.gids()) {
            file(p.resolve("gids/" + g.index()), g.value());
            if (g.type() != null) {
                file(p.resolve("gid_attrs/types/" + g.index()), g.type());
            }
            if (g.ndev() != null) {
                file(p.resolve("gid_attrs/ndevs/" + g.index()), g.ndev());
            }
        }
        for (String c : s.counters()) {
            file(p.resolve("counters/" + c), "0");
        }
        for (String c : s.hwCounters()) {
            file(p.resolve("hw_counters/" + c), c.equals("lifespan") ? "10" : "0");
        }
    }

    /** A char-device class entry (uverbsN, umadN, issmN) and its /dev node (an empty file, see Ttar). */
    void charDevice(Path parent, String className, String node, String ibdev, int port, int major, int minor) {
        Path d = parent == null ? sys.resolve("devices/virtual/" + className + "/" + node) : parent.resolve(className + "/" + node);
        file(d.resolve("ibdev"), ibdev);
        file(d.resolve("dev"), major + ":" + minor);
        if (port > 0) {
            file(d.resolve("port"), Integer.toString(port));
        }
        link(sys.resolve("class/" + className + "/" + node), d);
        file(root.resolve("dev/infiniband/" + node), major + ":" + minor);
    }

    void rdmaCm(int minor) {
        Path d = sys.resolve("devices/virtual/misc/rdma_cm");
        file(d.resolve("dev"), "10:" + minor);
        file(d.resolve("abi_version"), "4");
        link(sys.resolve("class/misc/rdma_cm"), d);
        file(root.resolve("dev/infiniband/rdma_cm"), "10:" + minor);
    }

    Path netdev(Path parent, String name, int ifindex, String mac, String operstate, int type) {
        Path d = parent == null ? sys.resolve("devices/virtual/net/" + name) : parent.resolve("net/" + name);
        file(d.resolve("ifindex"), Integer.toString(ifindex));
        file(d.resolve("address"), mac);
        file(d.resolve("operstate"), operstate);
        file(d.resolve("type"), Integer.toString(type));
        file(d.resolve("mtu"), type == 32 ? "4092" : "1500");
        file(d.resolve("carrier"), operstate.equals("up") ? "1" : "0");
        if (parent != null) {
            link(d.resolve("device"), parent);
        }
        link(sys.resolve("class/net/" + name), d);
        return d;
    }

    /**
     * A bond over existing netdevs, as the bonding driver shows it: {@code bonding/slaves} and {@code mode},
     * {@code lower_<member>} links on the bond, {@code master} and {@code upper_<bond>} links on each member.
     */
    Path bond(String name, int ifindex, String mac, String mode, List<Path> members) {
        Path d = netdev(null, name, ifindex, mac, "up", 1);
        file(d.resolve("bonding/slaves"), String.join(" ", members.stream().map(m -> m.getFileName().toString())
                .toList()));
        file(d.resolve("bonding/mode"), mode);
        for (Path m : members) {
            link(d.resolve("lower_" + m.getFileName()), m);
            link(m.resolve("master"), d);
            link(m.resolve("upper_" + name), d);
        }
        return d;
    }

    void file(Path f, String content) {
        mkdirs(f.getParent());
        try {
            Files.writeString(f, content + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void file(String rel, String content) {
        file(root.resolve(rel), content);
    }

    void dir(String rel) {
        mkdirs(root.resolve(rel));
    }

    void link(Path link, Path target) {
        mkdirs(link.getParent());
        try {
            Files.deleteIfExists(link);
            Files.createSymbolicLink(link, link.getParent().relativize(target));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void mkdirs(Path d) {
        try {
            Files.createDirectories(d);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
