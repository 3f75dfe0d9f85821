// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePlugin;
import io.rdmanode.kubelet.DevicePluginException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A pool of shared HCAs as a kubelet device plugin: {@code rdmaHcaMax} interchangeable IDs, each standing
 * for "all the pool's HCAs, shared". Every ID carries the pool's health and the NUMA nodes of its HCAs;
 * Allocate hands out the character devices of every matched HCA, container path equal to host path.
 * Thread-safe: {@link #update} runs on the discovery thread, the rest on RPC threads.
 */
public final class SharedPool implements DevicePlugin {

    private final PoolSettings settings;
    private final Optional<CdiSpecWriter> cdi;
    private volatile PoolState state;
    private volatile List<Device> devices = List.of();

    public SharedPool(PoolSettings settings, HostSnapshot host) {
        this.settings = settings;
        this.cdi = settings.cdiSpecDir().map(dir -> new CdiSpecWriter(dir, settings.name()));
        update(host);
    }

    /** Recomputes the pool on {@code host}; true when anything about it changed. */
    public synchronized boolean update(HostSnapshot host) {
        PoolState previous = state;
        PoolState next = PoolState.of(settings, host);
        state = next;
        if (!next.sameAdvertisement(previous)) {
            List<Device> list = new ArrayList<>(settings.rdmaHcaMax());
            for (int i = 0; i < settings.rdmaHcaMax(); i++) {
                list.add(new Device(settings.deviceId(i), next.healthy(), next.numaNodes()));
            }
            devices = List.copyOf(list);
        }
        return !next.sameContent(previous);
    }

    public PoolState state() {
        return state;
    }

    public PoolSettings settings() {
        return settings;
    }

    @Override
    public String resourceName() {
        return settings.extendedResourceName();
    }

    @Override
    public List<Device> devices() {
        return devices;
    }

    @Override
    public ContainerAllocation allocate(List<String> deviceIds) {
        List<String> unknown = deviceIds.stream().filter(id -> !known(id)).toList();
        if (!unknown.isEmpty()) {
            throw new DevicePluginException(DevicePluginException.Code.INVALID_ARGUMENT, resourceName(),
                    "unknown device id(s) " + unknown.stream().map(id -> "'" + id + "'").toList() + " for resource "
                            + resourceName() + " (pool " + settings.name() + " has " + settings.deviceId(0) + " to "
                            + settings.deviceId(settings.rdmaHcaMax() - 1) + ")");
        }
        PoolState s = state;
        if (!s.healthy()) {
            throw new DevicePluginException(DevicePluginException.Code.UNAVAILABLE, resourceName(),
                    "pool " + settings.name() + " (" + resourceName() + ") cannot serve: " + s.reason());
        }
        Map<String, String> annotations = new LinkedHashMap<>();
        List<String> cdiDevices = new ArrayList<>();
        List<ContainerAllocation.DeviceNode> nodes = s.deviceNodes();
        if (cdi.isPresent()) {
            try {
                cdi.get().write(s.deviceNodes());
            } catch (IOException e) {
                throw new DevicePluginException(DevicePluginException.Code.UNAVAILABLE, resourceName(),
                        "cannot write CDI spec " + cdi.get().file() + " for pool " + settings.name() + ": "
                                + e.getMessage(), e);
            }
            annotations.put(cdi.get().annotationKey(), cdi.get().qualifiedName());
            cdiDevices.add(cdi.get().qualifiedName());
            nodes = List.of();                    // the runtime adds them from the spec
        }
        return new ContainerAllocation(Map.of(), List.of(), nodes, annotations, cdiDevices);
    }

    /** Removes the CDI spec, if one was written. */
    public void close() throws IOException {
        if (cdi.isPresent()) {
            cdi.get().delete();
        }
    }

    private boolean known(String id) {
        String prefix = settings.resourceName() + "-";
        if (!id.startsWith(prefix)) {
            return false;
        }
        String n = id.substring(prefix.length());
        if (n.isEmpty() || n.length() > 6 || !n.chars().allMatch(Character::isDigit)
                || (n.length() > 1 && n.charAt(0) == '0')) {
            return false;
        }
        return Integer.parseInt(n) < settings.rdmaHcaMax();
    }

    /** The {@code /status} view of this pool. */
    public Map<String, Object> status() {
        PoolState s = state;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", settings.name());
        m.put("resource", resourceName());
        m.put("rdmaHcaMax", settings.rdmaHcaMax());
        m.put("healthy", s.healthy());
        if (!s.healthy()) {
            m.put("reason", s.reason());
        }
        m.put("matched", s.matched());
        m.put("numaNodes", s.numaNodes());
        m.put("deviceNodes", s.deviceNodes().stream().map(ContainerAllocation.DeviceNode::hostPath).toList());
        if (!s.unhealthy().isEmpty()) {
            m.put("unusable", s.unhealthy());
        }
        if (!s.missingDeviceNodes().isEmpty()) {
            m.put("missingDeviceNodes", s.missingDeviceNodes());
        }
        m.put("excluded", s.excluded());
        m.put("cdi", cdi.map(c -> (Object) c.file().toString()).orElse(false));
        return m;
    }
}
