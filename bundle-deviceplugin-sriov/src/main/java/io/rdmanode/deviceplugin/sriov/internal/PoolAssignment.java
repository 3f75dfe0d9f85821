// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

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

    /** A pool as the assignment sees it: its name and selectors. */
    public record Rule(String name, VfMatcher matcher) { }

    public static PoolAssignment of(List<Rule> rules, HostSnapshot snapshot, Map<String, VfRdma> remembered) {
        HostIndex host = new HostIndex(snapshot);
        boolean exclusive = snapshot.netnsMode().mode() == NetnsMode.Mode.EXCLUSIVE;
        Map<String, List<PooledVf>> pools = new LinkedHashMap<>();
        rules.forEach(r -> pools.put(r.name(), new ArrayList<>()));
        Map<String, String> status = new TreeMap<>();
        Map<String, VfRdma> ledger = new TreeMap<>();
        for (SriovVf vf : SriovVf.all(host)) {
            Optional<VfRdma> onHost = vf.rdmaDevices().isEmpty() ? Optional.empty()
                    : VfRdma.on(host, vf.rdmaDevices().get(0));
            Optional<VfRdma> known = onHost.or(() -> Optional.ofNullable(remembered.get(vf.id())));
            known.ifPresent(r -> ledger.put(vf.id(), r));
            boolean inPod = onHost.isEmpty() && known.isPresent() && exclusive;
            SriovVf candidate = onHost.isEmpty() && known.isPresent() ? withRdma(vf, known.get().device()) : vf;
            List<String> reasons = new ArrayList<>();
            Rule taker = null;
            for (Rule r : rules) {
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
            pools.get(taker.name()).add(new PooledVf(vf, known, inPod, problem));
            status.put(vf.id(), "pool " + taker.name() + (inPod ? " (RDMA device " + known.get().device()
                    + " in a pod netns)" : "") + problem.map(p -> ", unhealthy: " + p).orElse(""));
        }
        return new PoolAssignment(snapshot.revision(), pools, status, ledger);
    }

    private static SriovVf withRdma(SriovVf vf, String rdmaDevice) {
        return new SriovVf(vf.address(), vf.pf(), vf.index(), vf.pfNetdevs(), vf.vendor(), vf.device(), vf.driver(),
                vf.numaNode(), vf.iommuGroup(), List.of(rdmaDevice), vf.netDevices());
    }

    public List<PooledVf> pool(String name) {
        return pools.getOrDefault(name, List.of());
    }
}
