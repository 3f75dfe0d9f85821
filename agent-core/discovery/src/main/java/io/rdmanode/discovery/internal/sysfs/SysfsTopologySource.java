// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import io.rdmanode.discovery.BackendStatus;
import io.rdmanode.discovery.CharDevice;
import io.rdmanode.discovery.DiscoveryException;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetDevice;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.Problem;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.discovery.internal.TopologySource;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Supplier;

/**
 * The sysfs backend: RDMA devices, PCI functions and netdevs read from a {@link SysfsRoot}. Keeps the last
 * scan's objects so that an event about one VF re-reads that VF, its PF and their devices only. A failure on
 * one object becomes a {@link Problem} for that object; the others are still reported.
 */
public final class SysfsTopologySource implements TopologySource {

    private final SysfsRoot root;
    private final Supplier<NetnsMode> netnsMode;
    // Concurrent maps: a full scan reads objects in parallel (sysfs reads are syscall-bound; see scan()).
    private final Map<String, RdmaDevice> devices = new ConcurrentSkipListMap<>();
    private final Map<PciAddress, PciFunction> pci = new ConcurrentSkipListMap<>();
    private final Map<String, NetDevice> netdevs = new ConcurrentSkipListMap<>();
    private final Map<String, Problem> problems = new ConcurrentSkipListMap<>();
    private CharDevice rdmaCm;

    public SysfsTopologySource(SysfsRoot root, Supplier<NetnsMode> netnsMode) {
        this.root = root;
        this.netnsMode = netnsMode;
    }

    @Override
    public String name() {
        return "sysfs";
    }

    public SysfsRoot root() {
        return root;
    }

    @Override
    public HostSnapshot scan() {
        devices.clear();
        pci.clear();
        netdevs.clear();
        problems.clear();
        CharDeviceLocator chars = new CharDeviceLocator(root);
        InfinibandClassReader ib = new InfinibandClassReader(root, chars);
        PciBusReader bus = new PciBusReader(root);
        NetClassReader net = new NetClassReader(root);
        // Parallel: a thousand-VF host means ~60k small file reads, each a few syscalls; on the scan thread
        // alone that is ~2x the 150 ms budget. Objects are independent, the maps are concurrent.
        guard("rdma devices", root.classInfiniband().toString(), ib::deviceNames, List.<String>of())
                .parallelStream().forEach(name -> readDevice(ib, name));
        guard("pci bus", root.busPciDevices().toString(), bus::addresses, List.<PciAddress>of())
                .parallelStream().forEach(a -> readPci(bus, a));
        guard("netdevs", root.classNet().toString(), net::names, List.<String>of())
                .parallelStream().forEach(name -> readNetdev(net, name));
        rdmaCm = chars.rdmaCm();
        return assemble();
    }

    @Override
    public HostSnapshot update(ScanHints hints) {
        if (hints.isFull() || rdmaCm == null) {
            return scan();
        }
        CharDeviceLocator chars = new CharDeviceLocator(root);
        InfinibandClassReader ib = new InfinibandClassReader(root, chars);
        PciBusReader bus = new PciBusReader(root);
        NetClassReader net = new NetClassReader(root);
        Set<String> ibNames = new HashSet<>(hints.rdmaDevices());
        Set<String> netNames = new HashSet<>(hints.netDevices());
        Set<PciAddress> pciAddrs = new HashSet<>(hints.pciFunctions());
        for (String n : hints.netDevices()) {
            widenNetdev(n, ibNames, pciAddrs);                  // a RoCE port's state follows its netdev
        }
        for (PciAddress a : hints.pciFunctions()) {
            widen(a, ibNames, netNames, pciAddrs);              // before: what the function had
        }
        for (PciAddress a : Set.copyOf(pciAddrs)) {
            readPci(bus, a);
            widen(a, ibNames, netNames, pciAddrs);              // after: what it has now
        }
        for (PciAddress a : pciAddrs) {
            readPci(bus, a);                                    // PFs added by widening (VF counts)
        }
        ibNames.forEach(n -> readDevice(ib, n));
        netNames.forEach(n -> readNetdev(net, n));
        rdmaCm = chars.rdmaCm();
        return assemble();
    }

    private void widenNetdev(String name, Set<String> ibNames, Set<PciAddress> pciAddrs) {
        NetDevice n = netdevs.get(name);
        if (n != null) {
            n.pciFunction().ifPresent(pciAddrs::add);
        }
        for (RdmaDevice d : devices.values()) {
            if (d.parentNetdev().filter(name::equals).isPresent()
                    || d.ports().stream().anyMatch(p -> p.netdev().filter(name::equals).isPresent())) {
                ibNames.add(d.name());
            }
        }
    }

    private void widen(PciAddress a, Set<String> ibNames, Set<String> netNames, Set<PciAddress> pciAddrs) {
        PciFunction f = pci.get(a);
        if (f != null) {
            ibNames.addAll(f.rdmaDevices());
            netNames.addAll(f.netDevices());
            f.physicalFunction().ifPresent(pciAddrs::add);
        }
    }

    private void readDevice(InfinibandClassReader ib, String name) {
        String key = "rdma device " + name;
        problems.remove(key);
        devices.remove(name);
        if (ib.exists(name)) {
            guard(key, root.classInfiniband().resolve(name).toString(), () -> devices.put(name, ib.read(name)), null);
        }
    }

    private void readPci(PciBusReader bus, PciAddress a) {
        String key = "pci " + a;
        problems.remove(key);
        pci.remove(a);
        if (bus.exists(a)) {
            guard(key, bus.dir(a).toString(), () -> bus.isOfInterest(a) ? pci.put(a, bus.read(a)) : null, null);
        }
    }

    private void readNetdev(NetClassReader net, String name) {
        String key = "netdev " + name;
        problems.remove(key);
        netdevs.remove(name);
        if (net.exists(name)) {
            guard(key, root.classNet().resolve(name).toString(), () -> netdevs.put(name, net.read(name)), null);
        }
    }

    private <T> T guard(String key, String path, Supplier<T> read, T fallback) {
        try {
            return read.get();
        } catch (DiscoveryException e) {
            problems.put(key, new Problem(key, e.getMessage()));
        } catch (RuntimeException e) {
            problems.put(key, new Problem(key, "cannot read " + path + ": " + e));
        }
        return fallback;
    }

    private HostSnapshot assemble() {
        List<RdmaDevice> rdma = new ArrayList<>(devices.size());
        for (RdmaDevice d : devices.values()) {
            rdma.add(d.withTopology(netDevicesOf(d), d.parentNetdev().map(netdevs::get)
                    .flatMap(NetDevice::pciFunction)));
        }
        Map<String, String> rdmaOfNetdev = new TreeMap<>();
        for (RdmaDevice d : rdma) {
            d.parentNetdev().ifPresent(n -> rdmaOfNetdev.putIfAbsent(n, d.name()));
            d.ports().forEach(p -> p.netdev().ifPresent(n -> rdmaOfNetdev.putIfAbsent(n, d.name())));
        }
        for (RdmaDevice d : rdma) {
            d.netDevices().forEach(n -> rdmaOfNetdev.putIfAbsent(n, d.name()));     // bond members
        }
        List<NetDevice> nets = new ArrayList<>(netdevs.size());
        for (NetDevice n : netdevs.values()) {
            String rdmaName = rdmaOfNetdev.get(n.name());
            if (rdmaName == null && n.pciFunction().isPresent()) {
                PciFunction f = pci.get(n.pciFunction().get());
                rdmaName = f == null || f.rdmaDevices().isEmpty() ? null : f.rdmaDevices().get(0);
            }
            nets.add(new NetDevice(n.name(), n.ifindex(), n.mac(), n.operState(), n.linkType(), n.pciFunction(),
                    java.util.Optional.ofNullable(rdmaName), n.bondMaster(), n.bondMembers()));
        }
        return new HostSnapshot(0, Instant.now(), BackendStatus.available(name()), rdma,
                List.copyOf(pci.values()), nets, rdmaCm, netnsMode.get(), List.copyOf(problems.values()));
    }

    /**
     * Ports' netdevs, the PCI function's netdevs and a soft device's parent, then every member of a bond among
     * them: {@code mlx5_bond_0}'s GIDs name {@code bond0} and its PCI function (PF0) names one member only, but
     * a pool selecting the other member must match it too. Bonds are followed downwards only: a member's bond
     * is not the device's unless the device itself names the bond.
     */
    private List<String> netDevicesOf(RdmaDevice d) {
        java.util.TreeSet<String> names = new java.util.TreeSet<>();
        d.ports().forEach(p -> p.netdev().ifPresent(names::add));
        d.parentNetdev().ifPresent(names::add);
        d.pciFunction().map(pci::get).ifPresent(f -> names.addAll(f.netDevices()));
        for (String n : List.copyOf(names)) {
            NetDevice net = netdevs.get(n);
            if (net != null) {
                names.addAll(net.bondMembers());
            }
        }
        return List.copyOf(names);
    }

}
