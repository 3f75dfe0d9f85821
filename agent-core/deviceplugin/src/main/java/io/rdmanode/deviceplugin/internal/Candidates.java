// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.deviceplugin.CandidateDevice;
import io.rdmanode.deviceplugin.DeviceFile;
import io.rdmanode.deviceplugin.DeviceHealth;
import io.rdmanode.deviceplugin.Granularity;
import io.rdmanode.deviceplugin.NetdevRef;
import io.rdmanode.deviceplugin.PciInfo;
import io.rdmanode.deviceplugin.RdmaPresence;
import io.rdmanode.discovery.CharDevice;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetDevice;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaPort;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Builds {@link CandidateDevice}s from a discovery snapshot. Pure: reads nothing but the snapshot.
 */
public final class Candidates {

    /** Drivers that take a VF away from the kernel network stack (no netdev, no RDMA device). */
    private static final List<String> USERSPACE_DRIVERS = List.of("vfio-pci", "uio_pci_generic", "igb_uio");

    private Candidates() {
    }

    public static List<CandidateDevice> of(HostSnapshot snapshot, Granularity granularity) {
        Lookup host = new Lookup(snapshot);
        return switch (granularity) {
            case HCA -> snapshot.devices().stream().map(d -> hca(host, d)).toList();
            case PCI_FUNCTION -> snapshot.pciFunctions().stream().map(f -> function(host, f)).toList();
            case VF -> snapshot.pciFunctions().stream().filter(PciFunction::isVirtualFunction)
                    .map(f -> function(host, f)).toList();
        };
    }

    public static DeviceFile rdmaCm(HostSnapshot host) {
        return file(host.rdmaCm());
    }

    static CandidateDevice hca(Lookup host, RdmaDevice d) {
        Optional<PciFunction> own = d.pciFunction().flatMap(host::pciFunction);
        Map<String, NetdevRef> netdevs = new LinkedHashMap<>();
        own.ifPresent(f -> f.netDevices().forEach(n -> add(netdevs, host, n, NetdevRef.Role.FUNCTION)));
        portNetdevs(host, d, netdevs);
        Optional<PciInfo> pci = own.map(f -> pciInfo(host, f));
        return new CandidateDevice(Granularity.HCA, d.name(), pci, Optional.of(d), RdmaPresence.PRESENT,
                List.copyOf(netdevs.values()), rdmaFiles(d), health(d));
    }

    static CandidateDevice function(Lookup host, PciFunction f) {
        Optional<RdmaDevice> rdma = f.rdmaDevices().stream().map(host::device).flatMap(Optional::stream)
                .findFirst();
        Map<String, NetdevRef> netdevs = new LinkedHashMap<>();
        f.netDevices().forEach(n -> add(netdevs, host, n, NetdevRef.Role.FUNCTION));
        rdma.ifPresent(d -> portNetdevs(host, d, netdevs));
        RdmaPresence presence = rdma.isPresent() ? RdmaPresence.PRESENT : presence(host, f);
        List<DeviceFile> files = new ArrayList<>(rdma.map(Candidates::rdmaFiles).orElse(List.of()));
        if (f.driver().filter("vfio-pci"::equals).isPresent()) {
            files.addAll(vfioFiles(host, f));
        }
        DeviceHealth health = rdma.map(Candidates::health).orElse(DeviceHealth.USABLE);
        return new CandidateDevice(f.isVirtualFunction() ? Granularity.VF : Granularity.PCI_FUNCTION,
                f.address().toString(), Optional.of(pciInfo(host, f)), rdma, presence,
                List.copyOf(netdevs.values()), files, health);
    }

    /**
     * No RDMA device visible: in exclusive mode an RDMA-capable VF on a kernel driver most likely has its RDMA
     * device in a pod (rdma-cni moved it); the PF having RDMA devices says the function is RDMA-capable.
     */
    private static RdmaPresence presence(Lookup host, PciFunction f) {
        if (!f.rdmaDevices().isEmpty()) {
            return RdmaPresence.OTHER_NAMESPACE;      // listed under the function, not in this namespace's class
        }
        if (host.netnsMode().mode() != NetnsMode.Mode.EXCLUSIVE || !f.isVirtualFunction()) {
            return RdmaPresence.NONE;
        }
        Optional<String> driver = f.driver();
        if (driver.isEmpty() || USERSPACE_DRIVERS.contains(driver.get())) {
            return RdmaPresence.NONE;
        }
        boolean pfRdma = f.physicalFunction().flatMap(host::pciFunction)
                .map(pf -> !pf.rdmaDevices().isEmpty()).orElse(false);
        return pfRdma && f.netDevices().isEmpty() ? RdmaPresence.OTHER_NAMESPACE : RdmaPresence.NONE;
    }

    private static void portNetdevs(Lookup host, RdmaDevice d, Map<String, NetdevRef> netdevs) {
        d.ports().forEach(p -> p.netdev().ifPresent(n -> add(netdevs, host, n, NetdevRef.Role.PORT)));
        d.parentNetdev().ifPresent(n -> add(netdevs, host, n, NetdevRef.Role.PARENT));
    }

    private static void add(Map<String, NetdevRef> netdevs, Lookup host, String name, NetdevRef.Role role) {
        Optional<NetDevice> nd = host.netDevice(name);
        netdevs.putIfAbsent(name, new NetdevRef(name, role, nd.map(NetDevice::linkType),
                nd.map(NetDevice::operState)));
    }

    static PciInfo pciInfo(Lookup host, PciFunction f) {
        List<String> pfNetdevs = f.physicalFunction().flatMap(host::pciFunction).map(PciFunction::netDevices)
                .orElse(List.of());
        return new PciInfo(f.address(), f.vendor(), f.device(), f.driver(), f.vfIndex(), f.physicalFunction(),
                pfNetdevs, f.numaNode(), f.iommuGroup());
    }

    static List<DeviceFile> rdmaFiles(RdmaDevice d) {
        List<DeviceFile> files = new ArrayList<>();
        files.add(file(d.uverbs()));
        for (RdmaPort p : d.ports()) {
            files.add(file(p.umad()));
            if (p.issm().present()) {                    // issm only where the port has one (optional)
                files.add(file(p.issm()));
            }
        }
        return List.copyOf(files);
    }

    /** {@code /dev/vfio/vfio} and {@code /dev/vfio/<group>}; the group is known from sysfs, not the node. */
    private static List<DeviceFile> vfioFiles(Lookup host, PciFunction f) {
        Path devRoot = devRoot(host);
        List<DeviceFile> files = new ArrayList<>();
        files.add(new DeviceFile("vfio", "vfio/vfio", devRoot.resolve("vfio/vfio"), Optional.empty()));
        String group = f.iommuGroup().orElse("");
        files.add(group.isEmpty()
                ? new DeviceFile("vfio", "vfio/unknown", devRoot.resolve("vfio"),
                        Optional.of(f.address() + " is bound to vfio-pci but has no IOMMU group"))
                : new DeviceFile("vfio", "vfio/" + group, devRoot.resolve("vfio/" + group), Optional.empty()));
        return files;
    }

    /** Discovery's dev root: {@code rdma_cm} is always {@code <devRoot>/infiniband/rdma_cm}. */
    private static Path devRoot(Lookup host) {
        Path p = host.rdmaCm().path();
        Path parent = p.getParent() == null ? null : p.getParent().getParent();
        return parent == null ? Path.of("/dev") : parent;
    }

    /** The RDMA character devices all live in {@code <devRoot>/infiniband/}. */
    static DeviceFile file(CharDevice c) {
        return new DeviceFile(c.kind(), "infiniband/" + c.path().getFileName(), c.path(), c.absentReason());
    }

    static DeviceHealth health(RdmaDevice d) {
        if (!d.uverbs().present()) {
            return DeviceHealth.unusable(d.uverbs().path() + " absent: " + d.uverbs().absentReason().orElse(""));
        }
        if (d.ports().stream().noneMatch(p -> p.state() == RdmaPort.PortState.ACTIVE)) {
            return DeviceHealth.unusable("no port ACTIVE (" + d.ports().stream()
                    .map(p -> "port " + p.number() + " " + p.state()).toList() + ")");
        }
        return DeviceHealth.USABLE;
    }

    /**
     * The snapshot with its PCI functions, RDMA devices and netdevs by key, built once per {@link #of} call: the
     * snapshot's own look-ups scan its lists, a million comparisons for the candidates of a 1,024-VF host.
     */
    static final class Lookup {
        private final HostSnapshot snapshot;
        private final Map<io.rdmanode.discovery.PciAddress, PciFunction> pci = new java.util.HashMap<>();
        private final Map<String, RdmaDevice> devices = new java.util.HashMap<>();
        private final Map<String, NetDevice> netdevs = new java.util.HashMap<>();

        Lookup(HostSnapshot snapshot) {
            this.snapshot = snapshot;
            snapshot.pciFunctions().forEach(f -> pci.put(f.address(), f));
            snapshot.devices().forEach(d -> devices.put(d.name(), d));
            snapshot.netDevices().forEach(n -> netdevs.put(n.name(), n));
        }

        Optional<PciFunction> pciFunction(io.rdmanode.discovery.PciAddress address) {
            return Optional.ofNullable(pci.get(address));
        }

        Optional<RdmaDevice> device(String name) {
            return Optional.ofNullable(devices.get(name));
        }

        Optional<NetDevice> netDevice(String name) {
            return Optional.ofNullable(netdevs.get(name));
        }

        NetnsMode netnsMode() {
            return snapshot.netnsMode();
        }

        CharDevice rdmaCm() {
            return snapshot.rdmaCm();
        }
    }
}
