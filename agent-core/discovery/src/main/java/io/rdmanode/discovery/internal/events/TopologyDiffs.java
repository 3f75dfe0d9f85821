// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.events;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetDevice;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaPort;
import io.rdmanode.discovery.SriovInfo;
import io.rdmanode.discovery.TopologyDiff;
import io.rdmanode.discovery.TopologyDiff.NetDeviceChange;
import io.rdmanode.discovery.TopologyDiff.PortChange;
import io.rdmanode.discovery.TopologyDiff.VfCountChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Computes the {@link TopologyDiff} between two snapshots; pure, so it is unit-tested on its own. */
public final class TopologyDiffs {

    private TopologyDiffs() {
    }

    public static TopologyDiff between(HostSnapshot before, HostSnapshot after, long toRevision) {
        Map<String, RdmaDevice> oldDevs = index(before.devices(), RdmaDevice::name);
        Map<String, RdmaDevice> newDevs = index(after.devices(), RdmaDevice::name);
        List<PortChange> ports = new ArrayList<>();
        List<String> other = new ArrayList<>();
        for (RdmaDevice d : after.devices()) {
            RdmaDevice old = oldDevs.get(d.name());
            if (old != null && !old.equals(d)) {
                int before0 = ports.size();
                for (RdmaPort p : d.ports()) {
                    old.port(p.number()).filter(o -> portMoved(o, p))
                            .ifPresent(o -> ports.add(new PortChange(d.name(), p.number(), o, p)));
                }
                if (ports.size() == before0) {
                    other.add("rdma device " + d.name() + " changed");
                }
            }
        }
        Map<Object, PciFunction> oldPci = index(before.pciFunctions(), PciFunction::address);
        List<VfCountChange> vfs = new ArrayList<>();
        for (PciFunction f : after.pciFunctions()) {
            PciFunction old = oldPci.get(f.address());
            if (old != null && numVfs(old) != numVfs(f)) {
                vfs.add(new VfCountChange(f.address(), numVfs(old), numVfs(f)));
            } else if (old != null && !old.equals(f)) {
                other.add("pci " + f.address() + " changed");
            }
        }
        Map<String, NetDevice> oldNet = index(before.netDevices(), NetDevice::name);
        List<NetDeviceChange> changed = new ArrayList<>();
        List<NetDeviceChange> moved = new ArrayList<>();
        for (NetDevice n : after.netDevices()) {
            NetDevice old = oldNet.get(n.name());
            if (old != null && !old.equals(n)) {
                boolean wasMoved = old.ifindex() != n.ifindex() || !old.pciFunction().equals(n.pciFunction())
                        || !old.rdmaDevice().equals(n.rdmaDevice());
                (wasMoved ? moved : changed).add(new NetDeviceChange(n.name(), old, n));
            }
        }
        if (!before.netnsMode().equals(after.netnsMode())) {
            other.add("netns mode " + before.netnsMode().mode() + " -> " + after.netnsMode().mode());
        }
        if (!before.rdmaCm().equals(after.rdmaCm())) {
            other.add("rdma_cm " + (after.rdmaCm().present() ? "present" : "absent"));
        }
        if (!before.backend().equals(after.backend())) {       // e.g. the verbs service came or went
            other.add("backend " + after.backend().backend() + (after.backend().available() ? " available"
                    : " unavailable: " + after.backend().unavailableReason().orElse("")));
        }
        if (!before.problems().equals(after.problems())) {
            other.add("problems: " + after.problems().size());
        }
        return new TopologyDiff(before.revision(), toRevision, added(oldDevs, newDevs), added(newDevs, oldDevs),
                ports, vfs, names(added(oldPci, index(after.pciFunctions(), PciFunction::address))),
                names(added(index(after.pciFunctions(), PciFunction::address), oldPci)),
                added(oldNet, index(after.netDevices(), NetDevice::name)),
                added(index(after.netDevices(), NetDevice::name), oldNet), changed, moved, other);
    }

    private static boolean portMoved(RdmaPort o, RdmaPort p) {
        return o.state() != p.state() || o.physState() != p.physState() || !Objects.equals(o.netdev(), p.netdev())
                || !o.gids().equals(p.gids()) || !o.rate().equals(p.rate()) || !o.lid().equals(p.lid());
    }

    private static int numVfs(PciFunction f) {
        return f.sriov().map(SriovInfo::numVfs).orElse(0);
    }

    private static <K, V> Map<K, V> index(List<V> values, Function<V, K> key) {
        return values.stream().collect(Collectors.toMap(key, Function.identity(), (a, b) -> a,
                java.util.LinkedHashMap::new));
    }

    /** Keys of {@code now} missing from {@code was}, in {@code now}'s order. */
    private static <K> List<K> added(Map<K, ?> was, Map<K, ?> now) {
        return now.keySet().stream().filter(k -> !was.containsKey(k)).toList();
    }

    private static List<String> names(List<?> keys) {
        return keys.stream().map(Object::toString).toList();
    }
}
