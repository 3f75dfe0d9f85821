// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * What a container gets for its VFs (kubelet {@code ContainerAllocateResponse}): per VF its RDMA character
 * devices ({@code uverbsN}, {@code umadN}, {@code issmN} where present) and once {@code rdma_cm}; for a VF
 * bound to {@code vfio-pci} {@code /dev/vfio/vfio} and its IOMMU group's node. Container paths are the
 * standard ones ({@code /dev/infiniband/…}, {@code /dev/vfio/…}), host paths where the nodes are (under the
 * configured dev root). Device nodes are de-duplicated by host path, permissions {@code rw} as the peer's.
 * The environment is {@link PciDeviceEnv}'s.
 *
 * @param containerPath host path of a node under the dev root to its path in the container
 * @param vfioHostPath  container path {@code /dev/vfio/…} to the host path
 */
public record VfAllocator(String resourcePrefix, String resourceName, Function<Path, String> containerPath,
                          Function<String, Path> vfioHostPath) {

    static final String PERMISSIONS = "rw";

    /**
     * @param rdmaCm host path of {@code rdma_cm}; empty when the host has none (then it is left out and the
     *               caller decides whether that is an error)
     */
    public ContainerAllocation allocate(List<PooledVf> vfs, Optional<Path> rdmaCm) {
        Map<String, DeviceNode> nodes = new LinkedHashMap<>();
        Map<String, Map<String, Map<String, String>>> info = new LinkedHashMap<>();
        boolean anyRdma = false;
        for (PooledVf p : vfs) {
            Map<String, Map<String, String>> providers = new LinkedHashMap<>();
            providers.put("generic", Map.of("deviceID", p.vf().id()));
            if (p.rdma().isPresent()) {
                anyRdma = true;
                VfRdma rdma = p.rdma().get();
                Map<String, String> r = new LinkedHashMap<>();
                r.put("rdma_dev", rdma.device());
                for (VfRdma.Node n : rdma.nodes()) {
                    String container = containerPath.apply(n.hostPath());
                    nodes.putIfAbsent(n.hostPath().toString(), new DeviceNode(container, n.hostPath().toString(),
                            PERMISSIONS));
                    r.putIfAbsent(n.kind(), container);
                }
                rdmaCm.ifPresent(cm -> r.put("rdma_cm", containerPath.apply(cm)));
                providers.put("rdma", r);
            }
            if (p.vf().vfio() && p.vf().iommuGroup().isPresent()) {
                String group = "/dev/vfio/" + p.vf().iommuGroup().get();
                add(nodes, "/dev/vfio/vfio");
                add(nodes, group);
                providers.put("vfio", Map.of("mount", "/dev/vfio/vfio", "dev-mount", group));
            }
            info.put(p.vf().id(), providers);
        }
        if (anyRdma && rdmaCm.isPresent()) {
            nodes.putIfAbsent(rdmaCm.get().toString(), new DeviceNode(containerPath.apply(rdmaCm.get()),
                    rdmaCm.get().toString(), PERMISSIONS));
        }
        List<String> ids = vfs.stream().map(p -> p.vf().id()).toList();
        return new ContainerAllocation(PciDeviceEnv.of(resourcePrefix, resourceName, ids, info), List.of(),
                new ArrayList<>(nodes.values()), Map.of(), List.of());
    }

    private void add(Map<String, DeviceNode> nodes, String container) {
        Path host = vfioHostPath.apply(container);
        nodes.putIfAbsent(host.toString(), new DeviceNode(container, host.toString(), PERMISSIONS));
    }

    /** IDs in request order without repeats (kubelet never repeats one, a hand-written client might). */
    static List<String> distinct(List<String> ids) {
        return List.copyOf(new LinkedHashSet<>(ids));
    }
}
