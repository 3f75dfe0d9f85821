// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.deviceplugin.Ownership;
import io.rdmanode.deviceplugin.PoolStatus;
import io.rdmanode.deviceplugin.PoolView;
import io.rdmanode.deviceplugin.ResourcePool;
import io.rdmanode.deviceplugin.ServedPool;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.TopologyDiff;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePlugin;
import io.rdmanode.kubelet.DevicePluginException;
import io.rdmanode.kubelet.DevicePluginHost;
import io.rdmanode.kubelet.PluginOptions;
import io.rdmanode.kubelet.ServedResource;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pool being served: the kubelet-facing plugin over the pool's current view, its server on the device-plugin
 * host and its discovery subscription. A topology change recomputes the view; ListAndWatch is pushed only when
 * the device list changed. Views are replaced whole (volatile), so RPC threads never see half an update.
 */
final class Served implements ServedPool, DevicePlugin, RdmaTopologyListener {

    private static final Logger LOG = LoggerFactory.getLogger(Served.class);

    private final ResourcePool pool;
    private final RdmaDiscovery discovery;
    private final LiveOwners owners;
    private final ServedResource served;
    private final AtomicLong allocations = new AtomicLong();
    private final AtomicLong allocationFailures = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile PoolView view;
    private volatile String ownershipConflict = "";
    private volatile List<String> lastAllocation = List.of();

    /** @throws IllegalArgumentException when the host already serves the pool's resource name */
    Served(ResourcePool pool, RdmaDiscovery discovery, DevicePluginHost host, LiveOwners owners) {
        this.pool = pool;
        this.discovery = discovery;
        this.owners = owners;
        this.view = owned(pool.compute(discovery.snapshot()));
        this.served = host.serve(this);
        try {
            owners.add(this);
            discovery.addListener(this);
            update(discovery.snapshot());            // a change between the first read and addListener
        } catch (RuntimeException e) {
            discovery.removeListener(this);
            owners.remove(this);
            owners.release(pool.resourceName());
            served.close();
            throw e;
        }
        log("serving", view);
    }

    @Override
    public void topologyChanged(HostSnapshot snapshot, TopologyDiff diff) {
        update(snapshot);
    }

    @Override
    public void refresh() {
        update(discovery.snapshot());
    }

    private synchronized void update(HostSnapshot snapshot) {
        if (closed.get()) {
            return;
        }
        PoolView previous = view;
        PoolView next;
        try {
            next = owned(pool.compute(snapshot));
        } catch (RuntimeException e) {
            // A plugin bug must not stop the discovery thread; the pool keeps its last view.
            LOG.error("pool view not recomputed pool={} revision={}", pool.name(), snapshot.revision(), e);
            return;
        }
        view = next;
        if (!next.devices().equals(previous.devices())) {
            served.devicesChanged();
        }
        if (next.healthy() != previous.healthy() || !next.unusable().equals(previous.unusable())) {
            log("changed", next);
        }
    }

    /**
     * {@code v} as served: claimed in the layer's ownership table, and Unhealthy with the conflict as its reason
     * when another pool owns one of its devices exclusively (or it is exclusive and another pool holds one of
     * them): a device is never served twice.
     */
    private PoolView owned(PoolView v) {
        List<Ownership.Conflict> conflicts = owners.claim(new Ownership.Claim(pool.resourceName(), pool.name(),
                pool.exclusive(), v.selection().matched().stream().map(Ownership::deviceId)
                        .collect(java.util.stream.Collectors.toSet())));
        String reason = String.join("; ", conflicts.stream().map(Ownership.Conflict::message).toList());
        ownershipConflict = reason;
        if (conflicts.isEmpty()) {
            return v;
        }
        LOG.error("pool not served pool={} resource={}: {}", pool.name(), pool.resourceName(), reason);
        return new PoolView(v.revision(), v.devices().stream().map(d -> new Device(d.id(), false, d.numaNodes()))
                .toList(), v.selection(), v.unusable(), false, reason, v.details());
    }

    private void log(String what, PoolView v) {
        if (v.healthy()) {
            LOG.info("pool {} pool={} resource={} devices={} unusable={}", what, pool.name(), pool.resourceName(),
                    v.selection().matchedKeys(), v.unusable());
        } else {
            LOG.warn("pool {} pool={} resource={} unhealthy: {}", what, pool.name(), pool.resourceName(),
                    v.reason());
        }
    }

    // DevicePlugin, for the host

    @Override
    public String resourceName() {
        return pool.resourceName();
    }

    @Override
    public PluginOptions options() {
        return pool.options();
    }

    @Override
    public List<Device> devices() {
        return view.devices();
    }

    @Override
    public List<String> preferredAllocation(List<String> available, List<String> mustInclude, int size) {
        return pool.preferredAllocation(view, available, mustInclude, size);
    }

    @Override
    public ContainerAllocation allocate(List<String> deviceIds) {
        String conflict = ownershipConflict;
        if (!conflict.isEmpty()) {
            allocationFailures.incrementAndGet();
            throw new DevicePluginException(DevicePluginException.Code.UNAVAILABLE, pool.resourceName(),
                    "pool " + pool.name() + " cannot serve: " + conflict);
        }
        try {
            ContainerAllocation a = pool.allocate(view, deviceIds);
            allocations.incrementAndGet();
            lastAllocation = List.copyOf(deviceIds);
            return a;
        } catch (DevicePluginException e) {
            allocationFailures.incrementAndGet();
            LOG.warn("allocate refused pool={} resource={} ids={}: {}", pool.name(), pool.resourceName(),
                    deviceIds, e.getMessage());
            throw e;
        }
    }

    // ServedPool, for the plugin bundle

    @Override
    public ResourcePool pool() {
        return pool;
    }

    @Override
    public PoolView view() {
        return view;
    }

    @Override
    public boolean registered() {
        return served.registered();
    }

    @Override
    public PoolStatus status() {
        PoolView v = view;
        return new PoolStatus(pool.name(), pool.resourceName(), v.healthy(), v.reason(), served.registered(),
                v.selection().matchedKeys(), v.selection().exclusionReasons(), v.unusable(), allocations.get(),
                allocationFailures.get(), lastAllocation, v.details());
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        discovery.removeListener(this);
        owners.remove(this);
        owners.release(pool.resourceName());
        served.close();
        try {
            pool.stopped();
        } catch (RuntimeException e) {
            LOG.warn("pool cleanup failed pool={}: {}", pool.name(), e.getMessage());
        }
        LOG.info("pool stopped pool={} resource={}", pool.name(), pool.resourceName());
    }
}
