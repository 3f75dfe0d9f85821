// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.deviceplugin.CandidateDevice;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which HCA, and so which NUMA node, each of a shared pool's IDs names. Each ID names one NUMA node: kubelet's
 * PodResources lists a device once per NUMA node of its topology, so an ID carrying the whole pool's nodes
 * appeared once per node to tools counting entries (issue 27). An Allocate still hands out every usable HCA of
 * the pool; the topology is the hint kubelet's topology manager aligns with.
 *
 * <p>IDs are dealt round-robin over the matched HCAs in PCI address order: ID {@code i} names HCA
 * {@code i mod n}. The order follows the hardware, not the kernel's {@code mlx5_N} names, which may change
 * between boots; raising or lowering {@code rdmaHcaMax} adds or removes IDs at the end and leaves every other ID
 * naming the HCA it named; so does a restart. Only a change in the set of matched HCAs deals the IDs again. An
 * HCA whose health fails keeps its IDs (its topology does not flap with its link); an HCA without a NUMA node
 * (no PCI function, or {@code numa_node} -1) gives its IDs no topology.
 */
final class SharedIdTopology {

    private SharedIdTopology() {
    }

    /** The NUMA nodes of IDs {@code 0..count-1}: one node each, or none. */
    static List<List<Long>> numaNodes(List<CandidateDevice> matched, int count) {
        List<CandidateDevice> hcas = inPciOrder(matched);
        List<List<Long>> nodes = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            nodes.add(hcas.isEmpty() ? List.of() : numa(hcas.get(i % hcas.size())));
        }
        return nodes;
    }

    /** For {@code /status}: each matched HCA with its NUMA node and how many IDs name it. */
    static Map<String, String> describe(List<CandidateDevice> matched, int count) {
        List<CandidateDevice> hcas = inPciOrder(matched);
        Map<String, String> m = new TreeMap<>();
        for (int h = 0; h < hcas.size(); h++) {
            int ids = count / hcas.size() + (h < count % hcas.size() ? 1 : 0);
            List<Long> numa = numa(hcas.get(h));
            m.put(hcas.get(h).key(), ids + " IDs, NUMA " + (numa.isEmpty() ? "none" : numa.get(0)));
        }
        return m;
    }

    private static List<CandidateDevice> inPciOrder(List<CandidateDevice> matched) {
        return matched.stream().sorted(Comparator.comparing(SharedIdTopology::orderKey)).toList();
    }

    /** The PCI address (fixed by the slot); soft devices without one after every PCI device, by name. */
    private static String orderKey(CandidateDevice c) {
        return c.pci().map(p -> "0" + p.address()).orElse("1" + c.key());
    }

    private static List<Long> numa(CandidateDevice c) {
        return c.numaNode().filter(n -> n >= 0).map(n -> List.of(n.longValue())).orElse(List.of());
    }
}
