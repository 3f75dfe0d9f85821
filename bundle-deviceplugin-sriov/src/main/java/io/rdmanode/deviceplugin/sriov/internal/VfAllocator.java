// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.deviceplugin.DeviceFile;
import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * What a container gets for its VFs (kubelet {@code ContainerAllocateResponse}): per VF its RDMA character
 * devices ({@code uverbsN}, {@code umadN}, {@code issmN} where present) and once {@code rdma_cm}; for a VF
 * bound to {@code vfio-pci} {@code /dev/vfio/vfio} and its IOMMU group's node. Container paths are
 * {@code /dev/…}, host paths under the layer's {@code hostDevRoot} ({@link DevicePaths}). Device nodes are
 * de-duplicated, permissions {@code rw} as the peer's. The environment is {@link PciDeviceEnv}'s.
 */
public record VfAllocator(String resourcePrefix, String resourceName, DevicePaths paths) {

    static final String PERMISSIONS = "rw";

    /** @param rdmaCm the host's {@code rdma_cm}; left out when absent (the pool's status says why) */
    public ContainerAllocation allocate(List<PooledVf> vfs, DeviceFile rdmaCm) {
        List<DeviceFile> files = new ArrayList<>();
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
                    files.add(n.file());
                    r.putIfAbsent(n.kind(), "/dev/" + n.relativePath());
                }
                if (rdmaCm.present()) {
                    r.put("rdma_cm", "/dev/" + rdmaCm.relativePath());
                }
                providers.put("rdma", r);
            }
            List<DeviceFile> vfio = p.vf().candidate().deviceFiles().stream()
                    .filter(f -> f.kind().equals("vfio") && f.present()).toList();
            if (p.vf().vfio() && vfio.size() == 2) {
                files.addAll(vfio);
                providers.put("vfio", Map.of("mount", "/dev/" + vfio.get(0).relativePath(),
                        "dev-mount", "/dev/" + vfio.get(1).relativePath()));
            }
            info.put(p.vf().id(), providers);
        }
        if (anyRdma) {
            files.add(rdmaCm);
        }
        List<DeviceNode> nodes = paths.nodes(files, PERMISSIONS);
        List<String> ids = vfs.stream().map(p -> p.vf().id()).toList();
        return new ContainerAllocation(PciDeviceEnv.of(resourcePrefix, resourceName, ids, info), List.of(), nodes,
                Map.of(), List.of());
    }

    /** IDs in request order without repeats (kubelet never repeats one, a hand-written client might). */
    static List<String> distinct(List<String> ids) {
        return List.copyOf(new LinkedHashSet<>(ids));
    }
}
