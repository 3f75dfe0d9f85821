// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.deviceplugin.CandidateDevice;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.RdmaPresence;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Which pool takes which VF on one snapshot: pools are tried in configuration order and the first whose
 * selectors match takes the VF (as in the peer, a VF is in at most one pool). Every VF gets a status line:
 * the pool that took it, or for each pool the selector that excluded it.
 *
 * @param pools   pool name to its VFs, by PCI address
 * @param vfs     VF ID to {@code pool <name>} or {@code no pool: <pool>: <reason>; …}
 * @param ledger  the RDMA ledger's next content: VFs with an RDMA device now, plus remembered ones still present
 */
public record PoolAssignment(long revision, Map<String, List<PooledVf>> pools, Map<String, String> vfs,
                             Map<String, VfRdma> ledger) {

    /** A pool as the assignment sees it: its name, extended resource name and selectors. */
    public record Rule(String name, String resource, VfMatcher matcher) {
        public Rule(String name, VfMatcher matcher) {
            this(name, "", matcher);
        }
    }

    public static PoolAssignment of(List<Rule> rules, DevicePluginLayer layer, HostSnapshot snapshot,
                                    Map<String, VfRdma> remembered) {
        return of(rules, layer, snapshot, remembered, Map.of());
    }

    /**
     * @param held VF ID to the extended resource that allocated it: only a pool of that resource may take it
     *             (kubelet believes a container holds it under that name), and none when no such pool matches
     */
    public static PoolAssignment of(List<Rule> rules, DevicePluginLayer layer, HostSnapshot snapshot,
                                    Map<String, VfRdma> remembered, Map<String, String> held) {
        HostIndex host = new HostIndex(snapshot);
        boolean exclusive = snapshot.netnsMode().mode() == NetnsMode.Mode.EXCLUSIVE;
        Map<String, List<PooledVf>> pools = new LinkedHashMap<>();
        rules.forEach(r -> pools.put(r.name(), new ArrayList<>()));
        Map<String, String> status = new TreeMap<>();
        Map<String, VfRdma> ledger = new TreeMap<>();
        for (SriovVf vf : SriovVf.all(layer, snapshot)) {
            Optional<VfRdma> onHost = VfRdma.of(vf.candidate());
            Optional<VfRdma> known = onHost.or(() -> Optional.ofNullable(remembered.get(vf.id())));
            known.ifPresent(r -> ledger.put(vf.id(), r));
            boolean inPod = onHost.isEmpty() && known.isPresent() && exclusive;
            SriovVf candidate = onHost.isEmpty() && known.isPresent() ? remembered(vf, known.get()) : vf;
            List<String> reasons = new ArrayList<>();
            Rule taker = null;
            String heldBy = held.get(vf.id());
            for (Rule r : rules) {
                if (heldBy != null && !heldBy.equals(r.resource())) {
                    reasons.add(r.name() + ": allocated as " + heldBy);
                    continue;
                }
                Optional<String> why = r.matcher().exclusion(candidate, host);
                if (why.isEmpty()) {
                    taker = r;
                    break;
                }
                reasons.add(r.name() + ": " + why.get());
            }
            if (taker == null) {
                status.put(vf.id(), rules.isEmpty() ? "no pool configured" : "no pool: " + String.join("; ", reasons));
                continue;
            }
            Optional<String> problem = VfHealth.problem(vf, onHost, known, exclusive, host);
            pools.get(taker.name()).add(new PooledVf(candidate, known, inPod, problem));
            status.put(vf.id(), "pool " + taker.name() + (inPod ? " (RDMA device " + known.get().device()
                    + " in a pod netns)" : "") + problem.map(p -> ", unhealthy: " + p).orElse(""));
        }
        return new PoolAssignment(snapshot.revision(), pools, status, ledger);
    }

    /**
     * A VF whose RDMA device the ledger remembers but the host does not show: it is RDMA-capable for the
     * selectors ({@code isRdma}), whatever the layer's guess from the netns mode and the PF says.
     */
    private static SriovVf remembered(SriovVf vf, VfRdma rdma) {
        CandidateDevice c = vf.candidate();
        CandidateDevice seen = c.rdmaPresence() != RdmaPresence.NONE ? c
                : new CandidateDevice(c.granularity(), c.key(), c.pci(), c.rdma(), RdmaPresence.OTHER_NAMESPACE,
                        c.netdevs(), c.deviceFiles(), c.health());
        return new SriovVf(vf.address(), vf.pf(), vf.index(), vf.pfNetdevs(), vf.vendor(), vf.device(), vf.driver(),
                vf.numaNode(), vf.iommuGroup(), List.of(rdma.device()), vf.netDevices(), seen);
    }

    public List<PooledVf> pool(String name) {
        return pools.getOrDefault(name, List.of());
    }
}
