// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import io.rdmanode.discovery.Gid;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetDevice;
import io.rdmanode.discovery.Problem;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaPort;
import io.rdmanode.discovery.RdmaPort.LinkLayer;
import io.rdmanode.discovery.RdmaPort.PhysState;
import io.rdmanode.discovery.RdmaPort.PortState;
import io.rdmanode.verbs.IbvDevice;
import io.rdmanode.verbs.IbvDeviceListing;
import io.rdmanode.verbs.IbvGid;
import io.rdmanode.verbs.IbvPort;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Describes the devices libibverbs listed with verbs facts (node GUID, firmware, port state, physical state,
 * link layer, rate, LID, GID table with types and netdevs) and takes from the sysfs snapshot, matched by
 * device name and port number, what verbs does not know: node type, driver, PCI function, parent netdev,
 * char devices and counter files. A device only one side knows becomes a {@link Problem}.
 */
final class VerbsSysfsMerge {

    private VerbsSysfsMerge() {
    }

    record Result(List<RdmaDevice> devices, List<Problem> problems) { }

    static Result merge(IbvDeviceListing verbs, HostSnapshot sysfs) {
        Map<Integer, String> netdevOfIfindex = new HashMap<>();
        for (NetDevice n : sysfs.netDevices()) {
            netdevOfIfindex.put(n.ifindex(), n.name());
        }
        List<Problem> problems = new ArrayList<>(sysfs.problems());
        verbs.failures().forEach((name, message) -> problems.add(new Problem("rdma device " + name, message)));
        List<RdmaDevice> devices = new ArrayList<>();
        for (IbvDevice v : verbs.devices()) {
            Optional<RdmaDevice> d = sysfs.device(v.name());
            if (d.isPresent()) {
                devices.add(describe(v, d.get(), netdevOfIfindex, problems));
            } else if (problems.stream().noneMatch(p -> p.object().equals("rdma device " + v.name()))) {
                problems.add(new Problem("rdma device " + v.name(), "libibverbs lists rdma device " + v.name()
                        + " but the sysfs backend does not (is sysfsRoot a recording of another host?)"));
            }
        }
        Set<String> listed = verbs.devices().stream().map(IbvDevice::name).collect(Collectors.toSet());
        listed.addAll(verbs.failures().keySet());
        for (RdmaDevice d : sysfs.devices()) {
            if (!listed.contains(d.name())) {
                problems.add(new Problem("rdma device " + d.name(), "sysfs lists rdma device " + d.name()
                        + " but libibverbs does not: no uverbs device, or no rdma-core provider for its driver"));
            }
        }
        devices.sort(Comparator.comparing(RdmaDevice::name));
        problems.sort(Comparator.comparing(Problem::object));
        return new Result(devices, problems);
    }

    private static RdmaDevice describe(IbvDevice v, RdmaDevice sysfs, Map<Integer, String> netdevOfIfindex,
                                       List<Problem> problems) {
        List<RdmaPort> ports = new ArrayList<>();
        for (IbvPort vp : v.ports()) {
            Optional<RdmaPort> sp = sysfs.port(vp.number());
            if (sp.isEmpty()) {
                problems.add(new Problem("rdma device " + v.name(), "libibverbs reports port " + vp.number()
                        + " of " + v.name() + " but sysfs has no ports/" + vp.number()));
                continue;
            }
            ports.add(port(vp, sp.get(), netdevOfIfindex));
        }
        return new RdmaDevice(v.name(), sysfs.nodeType(), Optional.of(v.nodeGuid()),
                Optional.of(v.fwVer()).filter(f -> !f.isBlank()), sysfs.driver(), sysfs.pciFunction(),
                sysfs.parentNetdev(), ports, sysfs.uverbs(), sysfs.hwCounterFiles(), sysfs.netDevices(),
                sysfs.parentPciFunction());
    }

    private static RdmaPort port(IbvPort vp, RdmaPort sysfs, Map<Integer, String> netdevOfIfindex) {
        LinkLayer layer = VerbsFormat.linkLayer(vp.linkLayer());
        List<Gid> gids = new ArrayList<>();
        for (IbvGid g : vp.gids()) {
            Optional<String> netdev = Optional.ofNullable(netdevOfIfindex.get(g.ndevIfindex()));
            if (g.type().isEmpty()) {                   // ibv_query_gid only: no ifindex either
                netdev = sysfs.gids().stream().filter(s -> s.index() == g.index() && s.value().equals(g.value()))
                        .findFirst().flatMap(Gid::netdev);
            }
            gids.add(new Gid(g.index(), g.value(), VerbsFormat.gidType(g.type(), layer), netdev));
        }
        Optional<String> netdev = gids.stream().filter(g -> g.index() == 0).findFirst().flatMap(Gid::netdev)
                .or(sysfs::netdev);
        Optional<String> rate = VerbsFormat.rate(vp.activeWidth(), vp.activeSpeed()).or(sysfs::rate);
        return new RdmaPort(vp.number(), PortState.ofCode(vp.state()), PhysState.ofCode(vp.physState()), layer,
                rate, Optional.of(vp.lid()), gids, netdev, sysfs.counterFiles(), sysfs.hwCounterFiles(),
                sysfs.umad(), sysfs.issm());
    }
}
