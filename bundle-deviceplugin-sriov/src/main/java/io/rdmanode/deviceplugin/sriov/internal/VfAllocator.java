// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.deviceplugin.DeviceFile;
import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * What a container gets for its VFs (kubelet {@code ContainerAllocateResponse}): per VF its RDMA character
 * devices ({@code uverbsN}, {@code umadN}, {@code issmN} where present) and once {@code rdma_cm}; for a VF
 * bound to {@code vfio-pci} {@code /dev/vfio/vfio} and its IOMMU group's node. Container paths are
 * {@code /dev/…}, host paths under the layer's {@code hostDevRoot} ({@link DevicePaths}). Device nodes are
 * de-duplicated, permissions {@code rw} as the peer's. The environment is {@link PciDeviceEnv}'s.
 *
 * <p>What one VF contributes (its nodes, its {@code _INFO} member) depends only on that VF as the pool sees it and on
 * {@code rdma_cm}, so it is worked out once per VF and kept while both stay the same objects: a new assignment or
 * rescan makes new {@link PooledVf}s, which are worked out again. Allocate then only joins them (issue #23: the
 * per-call JSON writer, streams and path resolution were about a quarter of
 * an SR-IOV Allocate handler's own CPU).
 */
public final class VfAllocator {

    static final String PERMISSIONS = "rw";

    private final DevicePaths paths;
    /** {@code PCIDEVICE_<PREFIX>_<NAME>}: the same for every Allocate of the pool. */
    private final String variable;
    /**
     * VF ID to what it contributes: at most one entry per VF the pool ever handed out (~1 KB each), bounded by the
     * host's VFs. The VF it was worked out for is held weakly: a PooledVf leads to its host snapshot, which a
     * cache must not keep alive after a rescan replaced it.
     */
    private final ConcurrentMap<String, Grant> grants = new ConcurrentHashMap<>();

    public VfAllocator(String resourcePrefix, String resourceName, DevicePaths paths) {
        this.paths = paths;
        this.variable = PciDeviceEnv.variable(resourcePrefix, resourceName);
    }

    /**
     * The nodes Allocate would hand out for {@code vf} alone (a CDI device), worked out without keeping anything:
     * a CDI spec covers every VF of the pool, most of which no container may ever ask for.
     */
    public List<DeviceNode> nodes(PooledVf vf, DeviceFile rdmaCm) {
        return join(List.of(Grant.of(vf, rdmaCm, paths)), rdmaCm);
    }

    /** @param rdmaCm the host's {@code rdma_cm}; left out when absent (the pool's status says why) */
    public ContainerAllocation allocate(List<PooledVf> vfs, DeviceFile rdmaCm) {
        List<Grant> granted = new ArrayList<>(vfs.size());
        StringBuilder ids = new StringBuilder();
        StringBuilder info = new StringBuilder("{");
        for (PooledVf p : vfs) {
            Grant g = grant(p, rdmaCm);
            granted.add(g);
            if (!ids.isEmpty()) {
                ids.append(',');
                info.append(',');
            }
            ids.append(p.vf().id());
            info.append(g.infoMember());
        }
        Map<String, String> env = new LinkedHashMap<>();
        env.put(variable, ids.toString());
        env.put(variable + "_INFO", info.append('}').toString());
        return new ContainerAllocation(env, List.of(), join(granted, rdmaCm), Map.of(), List.of());
    }

    /** The VFs' nodes de-duplicated by container path, in order, then {@code rdma_cm} once if any VF has RDMA. */
    private List<DeviceNode> join(List<Grant> granted, DeviceFile rdmaCm) {
        Map<String, DeviceNode> nodes = new LinkedHashMap<>();
        boolean anyRdma = false;
        for (Grant g : granted) {
            for (DeviceNode n : g.nodes()) {
                nodes.putIfAbsent(n.containerPath(), n);
            }
            anyRdma |= g.rdma();
        }
        if (anyRdma && rdmaCm.present()) {
            DeviceNode cm = paths.node(rdmaCm, PERMISSIONS);
            nodes.putIfAbsent(cm.containerPath(), cm);
        }
        return List.copyOf(nodes.values());
    }

    private Grant grant(PooledVf p, DeviceFile rdmaCm) {
        Grant g = grants.get(p.vf().id());
        if (g == null || g.vf().get() != p || g.rdmaCm() != rdmaCm) {
            g = Grant.of(p, rdmaCm, paths);
            grants.put(p.vf().id(), g);
        }
        return g;
    }

    /** IDs in request order without repeats (kubelet never repeats one, a hand-written client might). */
    static List<String> distinct(List<String> ids) {
        return List.copyOf(new LinkedHashSet<>(ids));
    }

    /**
     * One VF's part of an allocation.
     *
     * @param vf         the pool's view of the VF it was worked out for (compared by identity)
     * @param rdmaCm     the {@code rdma_cm} it was worked out with (compared by identity)
     * @param nodes      its own device nodes, de-duplicated, without {@code rdma_cm}
     * @param rdma       it has an RDMA device: the container gets {@code rdma_cm} too
     * @param infoMember {@code "<id>":{...}}, its member of the {@code _INFO} object
     */
    private record Grant(WeakReference<PooledVf> vf, DeviceFile rdmaCm, List<DeviceNode> nodes, boolean rdma, String infoMember) {

        static Grant of(PooledVf p, DeviceFile rdmaCm, DevicePaths paths) {
            List<DeviceFile> files = new ArrayList<>();
            Map<String, Map<String, String>> providers = new LinkedHashMap<>();
            providers.put("generic", Map.of("deviceID", p.vf().id()));
            if (p.rdma().isPresent()) {
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
            // {"<id>":{...}} without its braces: the member, joined with the other VFs' into one object.
            String object = Json.write(Map.of(p.vf().id(), providers));
            return new Grant(new WeakReference<>(p), rdmaCm, paths.nodes(files, PERMISSIONS), p.rdma().isPresent(),
                    object.substring(1, object.length() - 1));
        }
    }
}
