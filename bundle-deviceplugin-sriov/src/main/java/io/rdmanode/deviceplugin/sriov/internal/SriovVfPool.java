// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePlugin;
import io.rdmanode.kubelet.DevicePluginException;
import io.rdmanode.kubelet.PluginOptions;
import java.io.IOException;
import io.rdmanode.deviceplugin.DeviceFile;
import io.rdmanode.deviceplugin.DevicePaths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One SR-IOV pool as a kubelet device plugin: one device ID per VF (its PCI address) with the VF's health
 * and NUMA node. Allocate hands out the VFs' RDMA (or vfio) nodes and the PCIDEVICE environment and writes
 * their NPWG device-info files; it is idempotent (kubelet calls it again with an init container's IDs for the
 * next container). GetPreferredAllocation is offered. Thread-safe: {@link #update} on the discovery thread,
 * the rest on RPC threads.
 */
public final class SriovVfPool implements DevicePlugin {

    private static final Logger LOG = LoggerFactory.getLogger(SriovVfPool.class);

    private final SriovPoolSettings settings;
    private final VfAllocator allocator;
    private final DeviceInfoFiles deviceInfo;
    private volatile Map<String, PooledVf> vfs = Map.of();
    private volatile List<Device> devices = List.of();
    private volatile DeviceFile rdmaCm;

    public SriovVfPool(SriovPoolSettings settings, DevicePaths paths) {
        this.settings = settings;
        this.allocator = new VfAllocator(settings.resourcePrefix(), settings.resourceName(), paths);
        this.deviceInfo = new DeviceInfoFiles(settings.deviceInfoDir(), settings.extendedResourceName());
    }

    public SriovPoolSettings settings() {
        return settings;
    }

    /**
     * Takes the pool's VFs from a new assignment. Device-info files of VFs that left the pool, or whose RDMA
     * device came back from a pod's namespace (the pod is gone: the VF is free), are removed.
     *
     * @return true when the advertised list changed
     */
    public synchronized boolean update(List<PooledVf> next, DeviceFile rdmaCmNode) {
        Map<String, PooledVf> previous = vfs;
        Map<String, PooledVf> m = new LinkedHashMap<>();
        next.forEach(p -> m.put(p.vf().id(), p));
        for (PooledVf before : previous.values()) {
            PooledVf now = m.get(before.vf().id());
            if (now == null || before.inPodNetns() && !now.inPodNetns()) {
                removeDeviceInfo(before.vf().id());
            }
        }
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
        return changed;
    }

    /** At start: device-info files of this resource for VFs not in the pool are stale. */
    public List<String> removeStaleDeviceInfo() {
        try {
            return deviceInfo.removeAllBut(Set.copyOf(vfs.keySet()));
        } catch (IOException e) {
            LOG.warn("cannot clean device-info files in {}: {}", deviceInfo.dir(), e.getMessage());
            return List.of();
        }
    }

    /** When the pool stops (the spec: the plugin deletes its files when it stops). */
    public void removeAllDeviceInfo() {
        try {
            deviceInfo.removeAllBut(Set.of());
        } catch (IOException e) {
            LOG.warn("cannot remove device-info files in {}: {}", deviceInfo.dir(), e.getMessage());
        }
    }

    private void removeDeviceInfo(String id) {
        try {
            if (deviceInfo.remove(id)) {
                LOG.debug("device-info removed resource={} vf={}", resourceName(), id);
            }
        } catch (IOException e) {
            LOG.warn("cannot remove device-info file {}: {}", deviceInfo.file(id), e.getMessage());
        }
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

    @Override
    public List<Device> devices() {
        return devices;
    }

    @Override
    public List<String> preferredAllocation(List<String> available, List<String> mustInclude, int size) {
        Map<String, SriovVf> known = new LinkedHashMap<>();
        vfs.forEach((id, p) -> known.put(id, p.vf()));
        return PreferredAllocator.choose(known, available, mustInclude, size, settings.policy());
    }

    @Override
    public ContainerAllocation allocate(List<String> deviceIds) {
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
        for (PooledVf p : chosen) {
            try {
                deviceInfo.write(p.vf(), p.rdma().map(r -> List.of(r.device())).orElse(List.of()));
            } catch (IOException e) {
                throw new DevicePluginException(DevicePluginException.Code.UNAVAILABLE, resourceName(),
                        "cannot write device-info file " + deviceInfo.file(p.vf().id()) + ": " + e.getMessage(), e);
            }
        }
        LOG.debug("allocate resource={} vfs={}", resourceName(), ids);
        return allocator.allocate(chosen, rdmaCm);
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
        m.put("deviceInfoDir", deviceInfo.dir().toString());
        return m;
    }
}
