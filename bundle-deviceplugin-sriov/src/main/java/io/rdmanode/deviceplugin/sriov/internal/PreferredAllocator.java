// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.discovery.PciAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code GetPreferredAllocation} for VFs: every must-include ID first; then VFs on one NUMA node (the node of
 * the must-include VFs, else the node with the fewest free VFs that still satisfies the whole request, so
 * larger nodes stay whole for larger pods; else the fullest nodes first);
 * within those, the pool's policy across PFs: {@code spread} takes one VF from each PF in turn (a pod's
 * traffic over several ports), {@code pack} fills the PFs already used, then those with the most free VFs
 * (keeping other PFs whole for other pods). IDs kubelet offered that the pool does not know are ignored.
 */
public final class PreferredAllocator {

    public enum Policy { SPREAD, PACK }

    private PreferredAllocator() {
    }

    public static List<String> choose(Map<String, SriovVf> known, List<String> available, List<String> mustInclude,
                                      int size, Policy policy) {
        LinkedHashSet<String> chosen = new LinkedHashSet<>(mustInclude);
        List<SriovVf> free = available.stream().filter(id -> !chosen.contains(id)).map(known::get)
                .filter(v -> v != null).sorted(Comparator.comparing(SriovVf::address)).toList();
        List<SriovVf> pinned = mustInclude.stream().map(known::get).filter(v -> v != null).toList();
        if (chosen.size() >= size) {
            return List.copyOf(chosen);
        }
        for (List<SriovVf> group : numaOrder(free, pinned, size - chosen.size())) {
            for (SriovVf vf : acrossPfs(group, pinned, size - chosen.size(), policy)) {
                chosen.add(vf.id());
            }
            if (chosen.size() >= size) {
                break;
            }
        }
        return List.copyOf(chosen);
    }

    /** Free VFs grouped by NUMA node, best group first. VFs without a node form their own group, last. */
    private static List<List<SriovVf>> numaOrder(List<SriovVf> free, List<SriovVf> pinned, int wanted) {
        Map<Integer, List<SriovVf>> byNode = new TreeMap<>();
        for (SriovVf vf : free) {
            byNode.computeIfAbsent(vf.numaNode().orElse(Integer.MAX_VALUE), n -> new ArrayList<>()).add(vf);
        }
        Optional<Integer> pinnedNode = pinned.stream().map(SriovVf::numaNode).flatMap(Optional::stream).findFirst();
        List<Map.Entry<Integer, List<SriovVf>>> groups = new ArrayList<>(byNode.entrySet());
        groups.sort(Comparator.<Map.Entry<Integer, List<SriovVf>>>comparingInt(
                        e -> pinnedNode.isPresent() && pinnedNode.get().equals(e.getKey()) ? 0 : 1)
                .thenComparingInt(e -> e.getKey() == Integer.MAX_VALUE ? 1 : 0)
                .thenComparingInt(e -> e.getValue().size() >= wanted ? 0 : 1)
                .thenComparingInt(e -> e.getValue().size() >= wanted ? e.getValue().size() : -e.getValue().size())
                .thenComparingInt(Map.Entry::getKey));
        return groups.stream().map(Map.Entry::getValue).toList();
    }

    private static List<SriovVf> acrossPfs(List<SriovVf> group, List<SriovVf> pinned, int wanted, Policy policy) {
        Map<PciAddress, Deque<SriovVf>> byPf = new LinkedHashMap<>();
        for (SriovVf vf : group) {
            byPf.computeIfAbsent(vf.pf(), pf -> new ArrayDeque<>()).add(vf);
        }
        List<PciAddress> pfs = new ArrayList<>(byPf.keySet());
        List<PciAddress> used = pinned.stream().map(SriovVf::pf).distinct().toList();
        if (policy == Policy.PACK) {
            // PFs already used first, then the fullest PF: fewest PFs touched by this pod.
            pfs.sort(Comparator.<PciAddress>comparingInt(pf -> used.contains(pf) ? 0 : 1)
                    .thenComparingInt(pf -> -byPf.get(pf).size()).thenComparing(pf -> pf));
        } else {
            // PFs the pod does not use yet first, then the one with most free VFs: even load across ports.
            pfs.sort(Comparator.<PciAddress>comparingInt(pf -> used.contains(pf) ? 1 : 0)
                    .thenComparingInt(pf -> -byPf.get(pf).size()).thenComparing(pf -> pf));
        }
        List<SriovVf> out = new ArrayList<>();
        if (policy == Policy.PACK) {
            for (PciAddress pf : pfs) {
                for (SriovVf vf : byPf.get(pf)) {
                    if (out.size() == wanted) {
                        return out;
                    }
                    out.add(vf);
                }
            }
            return out;
        }
        boolean took = true;
        while (out.size() < wanted && took) {
            took = false;
            for (PciAddress pf : pfs) {
                SriovVf vf = byPf.get(pf).poll();
                if (vf != null && out.size() < wanted) {
                    out.add(vf);
                    took = true;
                }
            }
        }
        return out;
    }
}
