// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.deviceplugin.CdiRuntime;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePluginException;
import io.rdmanode.kubelet.PluginOptions;
import java.io.IOException;
import io.rdmanode.deviceplugin.CdiDevice;
import io.rdmanode.deviceplugin.CdiSpec;
import io.rdmanode.deviceplugin.DeviceFile;
import io.rdmanode.deviceplugin.DeviceInfo;
import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.PoolView;
import io.rdmanode.deviceplugin.ResourcePool;
import io.rdmanode.deviceplugin.Selection;
import io.rdmanode.discovery.HostSnapshot;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One SR-IOV pool as a kubelet device plugin: one device ID per VF (its PCI address) with the VF's health
 * and NUMA node. Allocate hands out the VFs' RDMA (or vfio) nodes and the PCIDEVICE environment and has
 * the layer write their NPWG device-info files ({@link #deviceInfo}); it is idempotent (kubelet calls it again
 * with an init container's IDs for the next container). GetPreferredAllocation is offered. With CDI on, the pool's spec has one device per VF (named by
 * its PCI address, with the VF's nodes), rewritten whenever the pool's VFs or their nodes change, and Allocate
 * answers with the VFs' CDI names (annotation and {@code cdi_devices}) instead of device nodes; env and
 * device-info files stay. Served by the device-plugin layer as a member of the bundle's {@link SriovPools} set,
 * whose assignment (first matching pool wins) {@link #compute} reads. Thread-safe: {@link #compute} on the set's
 * thread, the rest on RPC threads.
 */
public final class SriovVfPool implements ResourcePool {

    private static final Logger LOG = LoggerFactory.getLogger(SriovVfPool.class);

    private final SriovPoolSettings settings;
    private final VfMatcher matcher;
    private final SriovPools set;
    private final VfAllocator allocator;
    private volatile Map<String, PooledVf> vfs = Map.of();
    /** The VFs and rdma_cm node the CDI spec on disk was written for, and its device names; null until then. */
    private volatile CdiWritten cdiWritten;

    /** Compared by identity: {@link #update} replaces both objects whenever the assignment is recomputed. */
    private record CdiWritten(Map<String, PooledVf> vfs, DeviceFile rdmaCm, java.util.Set<String> names) {
    }
    private volatile List<Device> devices = List.of();
    private volatile DeviceFile rdmaCm;
    private final Optional<CdiSpec> cdi;
    private final Optional<CdiRuntime.Finding> cdiRuntime;
    private volatile String cdiProblem = "";

    /** CDI kind of SR-IOV pools' specs: {@code rdmanode.io/vf=<PCI address>}. */
    static final String CDI_KIND = "rdmanode.io/vf";


    /**
     * @param cdi        the pool's CDI spec when CDI is on ({@link #CDI_KIND}, owner the pool name)
     * @param cdiRuntime what was found about the runtime's CDI support, for {@code /status}
     */
    SriovVfPool(SriovPoolSettings settings, VfMatcher matcher, SriovPools set, DevicePluginLayer layer,
                Optional<CdiSpec> cdi, Optional<CdiRuntime.Finding> cdiRuntime) {
        DevicePaths paths = layer.paths();
        this.settings = settings;
        this.matcher = matcher;
        this.set = set;
        this.cdi = cdi;
        this.cdiRuntime = cdiRuntime;
        this.allocator = new VfAllocator(settings.resourcePrefix(), settings.resourceName(), paths);
    }

    public SriovPoolSettings settings() {
        return settings;
    }

    VfMatcher matcher() {
        return matcher;
    }

    @Override
    public String name() {
        return settings.name();
    }

    @Override
    public boolean exclusive() {
        return true;
    }

    /** The pool's part of the set's assignment, prepared for {@code host}. */
    @Override
    public PoolView compute(HostSnapshot host) {
        PoolAssignment assignment = set.assignment();
        List<PooledVf> next = assignment.pool(settings.name());
        update(next, set.rdmaCm());
        Map<String, String> unusable = new LinkedHashMap<>();
        next.stream().filter(p -> !p.healthy()).forEach(p -> unusable.put(p.vf().id(), p.unhealthy().get()));
        Selection selection = new Selection(next.stream().map(p -> p.vf().candidate()).toList(), List.of());
        return new PoolView(host.revision(), devices, selection, unusable, true, "", status());
    }

    /**
     * Takes the pool's VFs from a new assignment.
     *
     * @return true when the advertised list changed
     */
    private synchronized boolean update(List<PooledVf> next, DeviceFile rdmaCmNode) {
        Map<String, PooledVf> m = new LinkedHashMap<>();
        next.forEach(p -> m.put(p.vf().id(), p));
        vfs = Map.copyOf(m);
        rdmaCm = rdmaCmNode;
        List<Device> list = new ArrayList<>(next.size());
        for (PooledVf p : next) {
            List<Long> numa = settings.excludeTopology() ? List.of()
                    : p.vf().numaNode().map(n -> List.of(n.longValue())).orElse(List.of());
            list.add(new Device(p.vf().id(), p.healthy(), numa));
        }
        boolean changed = !list.equals(devices);
        devices = List.copyOf(list);
        cdi.ifPresent(spec -> {
            try {
                writeCdiSpec(spec, vfs, next, rdmaCmNode);
                cdiProblem = "";
            } catch (IOException e) {
                cdiWritten = null;
                // Allocate writes it again (and fails if it still cannot); until then the log and /status say it.
                cdiProblem = "cannot write CDI spec " + spec.file() + ": " + e.getMessage();
                LOG.warn("pool={}: {}", settings.name(), cdiProblem);
            }
        });
        return changed;
    }

    private CdiWritten writeCdiSpec(CdiSpec spec, Map<String, PooledVf> pooled, java.util.Collection<PooledVf> order,
                                    DeviceFile rdmaCmNode) throws IOException {
        List<CdiDevice> devices = cdiDevices(order, rdmaCmNode);
        if (spec.write(devices)) {
            LOG.debug("CDI spec written pool={} file={} vfs={}", settings.name(), spec.file(), pooled.size());
        }
        java.util.Set<String> names = new java.util.HashSet<>();
        devices.forEach(d -> names.add(d.name()));
        CdiWritten w = new CdiWritten(pooled, rdmaCmNode, java.util.Set.copyOf(names));
        cdiWritten = w;
        return w;
    }

    /**
     * One CDI device per VF with the nodes Allocate would hand out for it alone. A VF without any node (no RDMA
     * device, not vfio) is left out: CDI refuses a device without container edits.
     */
    private List<CdiDevice> cdiDevices(java.util.Collection<PooledVf> pooled, DeviceFile rdmaCmNode) {
        List<CdiDevice> list = new ArrayList<>();
        for (PooledVf p : pooled) {
            List<io.rdmanode.kubelet.ContainerAllocation.DeviceNode> nodes = allocator.nodes(p, rdmaCmNode);
            if (!nodes.isEmpty()) {
                list.add(new CdiDevice(p.vf().id(), nodes, Map.of()));
            }
        }
        return list;
    }

    /**
     * The pool stopped: its VFs stay reserved a moment; its CDI spec and the device-info files stay on disk for the
     * pods holding its VFs (the layer removes them once the pool is retired and they are released).
     */
    @Override
    public void stopped() {
        set.stopped(this);
        releaseCdiSpec();
    }

    /** Gives the pool's CDI spec back to the layer, if CDI is on; the file stays. */
    void releaseCdiSpec() {
        cdi.ifPresent(spec -> {
            try {
                spec.close();
            } catch (IOException e) {
                throw new UncheckedIOException("CDI spec " + spec.file(), e);
            }
        });
    }

    @Override
    public Optional<Path> deviceInfoDir() {
        return Optional.of(settings.deviceInfoDir());
    }

    /** The VF's PCI address, its PF's, and its RDMA device (from the host, or the ledger while in a pod netns). */
    @Override
    public Optional<DeviceInfo> deviceInfo(PoolView view, String deviceId) {
        return Optional.ofNullable(vfs.get(deviceId)).map(p -> new DeviceInfo(p.vf().id(),
                Optional.of(p.vf().pf().toString()), p.rdma().map(r -> List.of(r.device())).orElse(List.of())));
    }

    public Map<String, PooledVf> vfs() {
        return vfs;
    }

    @Override
    public String resourceName() {
        return settings.extendedResourceName();
    }

    @Override
    public PluginOptions options() {
        return new PluginOptions(false, true);
    }

    /** The advertised list of the latest view. */
    List<Device> devices() {
        return devices;
    }

    @Override
    public List<String> preferredAllocation(PoolView view, List<String> available, List<String> mustInclude,
                                            int size) {
        Map<String, SriovVf> known = new LinkedHashMap<>();
        vfs.forEach((id, p) -> known.put(id, p.vf()));
        return PreferredAllocator.choose(known, available, mustInclude, size, settings.policy());
    }

    @Override
    public ContainerAllocation allocate(PoolView view, List<String> deviceIds) {
        Map<String, PooledVf> now = vfs;
        List<String> ids = VfAllocator.distinct(deviceIds);
        if (ids.isEmpty()) {
            throw new DevicePluginException(DevicePluginException.Code.INVALID_ARGUMENT, resourceName(),
                    "no device id in the container request for resource " + resourceName());
        }
        List<String> unknown = ids.stream().filter(id -> !now.containsKey(id)).toList();
        if (!unknown.isEmpty()) {
            throw new DevicePluginException(DevicePluginException.Code.INVALID_ARGUMENT, resourceName(),
                    "unknown device id(s) " + unknown.stream().map(id -> "'" + id + "'").toList() + " for resource "
                            + resourceName() + " (pool " + settings.name() + " has " + now.size() + " VF(s))");
        }
        List<PooledVf> chosen = ids.stream().map(now::get).toList();
        List<String> unusable = chosen.stream().filter(p -> !p.healthy())
                .map(p -> p.vf().id() + ": " + p.unhealthy().orElseThrow()).toList();
        if (!unusable.isEmpty()) {
            throw new DevicePluginException(DevicePluginException.Code.UNAVAILABLE, resourceName(),
                    "VF(s) of resource " + resourceName() + " unusable: " + unusable);
        }
        LOG.debug("allocate resource={} vfs={}", resourceName(), ids);
        DeviceFile cm = rdmaCm;
        ContainerAllocation plain = allocator.allocate(chosen, cm);
        if (cdi.isEmpty()) {
            return plain;
        }
        CdiSpec spec = cdi.get();
        CdiWritten written = cdiWritten;
        if (written == null || written.vfs() != now || written.rdmaCm() != cm
                || !java.nio.file.Files.exists(spec.file())) {
            // Only when update could not write it, a new assignment is being taken, or the file is gone: building
            // one CDI device per VF of the pool is O(pool) work that the Allocate path skips otherwise (and in the
            // map's order, unlike update's, it rewrote the whole spec at every Allocate).
            try {
                written = writeCdiSpec(spec, now, now.values(), cm);
            } catch (IOException e) {
                throw new DevicePluginException(DevicePluginException.Code.UNAVAILABLE, resourceName(),
                        "cannot write CDI spec " + spec.file() + " for pool " + settings.name() + ": " + e.getMessage(), e);
            }
        }
        java.util.Set<String> inSpec = written.names();
        List<String> names = ids.stream().filter(inSpec::contains).map(spec::qualifiedName).toList();
        Map<String, String> annotations = names.isEmpty() ? Map.of()
                : Map.of(spec.annotationKey(), String.join(",", names));
        // The runtime adds the nodes from the spec; env (PCIDEVICE_*) and device-info files are as without CDI.
        return new ContainerAllocation(plain.envs(), plain.mounts(), List.of(), annotations, names);
    }

    /** The {@code /status} view of this pool. */
    public Map<String, Object> status() {
        Map<String, PooledVf> now = vfs;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", settings.name());
        m.put("resource", resourceName());
        m.put("policy", settings.policy().name().toLowerCase(java.util.Locale.ROOT));
        m.put("vfs", now.size());
        m.put("healthy", now.values().stream().filter(PooledVf::healthy).count());
        m.put("inPodNetns", now.values().stream().filter(PooledVf::inPodNetns).map(p -> p.vf().id()).toList());
        Map<String, String> unhealthy = new LinkedHashMap<>();
        now.values().stream().filter(p -> !p.healthy()).forEach(p -> unhealthy.put(p.vf().id(), p.unhealthy().get()));
        m.put("unhealthy", unhealthy);
        m.put("deviceInfoDir", settings.deviceInfoDir().toString());
        m.put("cdi", cdi.map(c -> (Object) c.file().toString()).orElse(false));
        cdiRuntime.ifPresent(f -> m.put("cdiRuntime", f.toStatus()));
        if (!cdiProblem.isEmpty()) {
            m.put("cdiProblem", cdiProblem);
        }
        return m;
    }
}
