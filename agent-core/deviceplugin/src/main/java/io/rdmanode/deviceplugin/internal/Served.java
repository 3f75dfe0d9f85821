// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.agent.LogText;
import io.rdmanode.agent.RefusalLog;
import io.rdmanode.deviceplugin.Ownership;
import io.rdmanode.deviceplugin.PoolStatus;
import io.rdmanode.deviceplugin.PoolView;
import io.rdmanode.deviceplugin.ResourcePool;
import io.rdmanode.deviceplugin.ServedPool;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePlugin;
import io.rdmanode.kubelet.DevicePluginException;
import io.rdmanode.kubelet.DevicePluginHost;
import io.rdmanode.kubelet.PluginOptions;
import io.rdmanode.kubelet.ServedResource;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pool being served: the kubelet-facing plugin over the pool's current view, its server on the device-plugin
 * host and its discovery subscription. A topology change recomputes the view; ListAndWatch is pushed only when
 * the device list changed. Views are replaced whole (volatile), so RPC threads never see half an update. Every
 * Allocate is recorded in the layer's allocation ledger before the pool answers (a shared pool's IDs too: what
 * is held keeps the pool's CDI spec, across a crash); stopping removes no file a pod reads ({@link #close}), a
 * retired pool leaves them to the layer ({@link #retire}).
 */
final class Served implements ServedPool, DevicePlugin {

    private static final Logger LOG = LoggerFactory.getLogger(Served.class);
    /** A client repeating a refused Allocate (an unknown ID in a loop wrote 62 MB of WARN) logs one line a minute. */
    private static final RefusalLog REFUSALS = new RefusalLog(LOG, Duration.ofMinutes(1));

    private final ResourcePool pool;
    private final ServedSet set;
    private final LiveOwners owners;
    private final HeldDevices held;
    private final Optional<HeldDeviceInfo> deviceInfo;
    private final ServedResource served;
    private final AtomicLong allocations = new AtomicLong();
    private final AtomicLong allocationFailures = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile PoolView view;
    private volatile String ownershipConflict = "";
    /** An exclusive pool's device IDs in conflict (the rest of it serves); unused for shared pools. */
    private volatile Set<String> conflicted = Set.of();
    private volatile List<String> lastAllocation = List.of();

    /**
     * Computes the first view from {@code first} (the set is prepared for it), then starts the server.
     *
     * @throws IllegalArgumentException when the host already serves the pool's resource name
     */
    Served(ResourcePool pool, HostSnapshot first, DevicePluginHost host, LiveOwners owners, HeldDevices held,
           ServedSet set) {
        this.pool = pool;
        this.set = set;
        this.owners = owners;
        this.held = held;
        this.deviceInfo = pool.deviceInfoDir().map(dir -> new HeldDeviceInfo(pool, held, dir));
        this.view = owned(unheld(pool.compute(first)));
        deviceInfo.ifPresent(d -> d.sync(view, first));
        try {
            this.served = host.serve(this);
        } catch (RuntimeException e) {
            owners.release(pool.resourceName());
            throw e;
        }
        owners.add(this);
        log("serving", view);
    }

    @Override
    public void refresh() {
        set.refresh();
    }

    /** Recomputes the view from {@code snapshot}; the set is prepared for it. */
    synchronized void update(HostSnapshot snapshot) {
        if (closed.get()) {
            return;
        }
        PoolView previous = view;
        PoolView next;
        try {
            next = owned(unheld(pool.compute(snapshot)));
        } catch (RuntimeException e) {
            // A plugin bug must not stop the discovery thread; the pool keeps its last view.
            LOG.error("pool view not recomputed pool={} revision={}", pool.name(), snapshot.revision(), e);
            return;
        }
        view = next;
        deviceInfo.ifPresent(d -> d.sync(next, snapshot));
        if (!next.devices().equals(previous.devices())) {
            served.devicesChanged();
        }
        if (next.healthy() != previous.healthy() || !next.unusable().equals(previous.unusable())) {
            log("changed", next);
        }
    }

    /**
     * {@code v} as served: claimed in the layer's ownership table. When another pool owns some of its devices
     * too (one of them exclusively), a device is never served twice: an exclusive pool's devices in conflict are
     * Unhealthy, a shared pool (whose IDs all stand for every device) is Unhealthy as a whole, with the conflict
     * as the reason.
     */
    private PoolView owned(PoolView v) {
        List<Ownership.Conflict> conflicts = owners.claim(new Ownership.Claim(pool.resourceName(), pool.name(),
                pool.exclusive(), v.selection().matched().stream().map(Ownership::deviceId)
                        .collect(Collectors.toSet())));
        String reason = String.join("; ", conflicts.stream().map(Ownership.Conflict::message).toList());
        ownershipConflict = reason;
        if (conflicts.isEmpty()) {
            conflicted = Set.of();
            return v;
        }
        LOG.error("pool not served pool={} resource={}: {}", pool.name(), pool.resourceName(), reason);
        if (pool.exclusive()) {
            Set<String> taken = new HashSet<>();
            conflicts.forEach(c -> taken.addAll(c.devices()));
            Map<String, String> unusable = new LinkedHashMap<>(v.unusable());
            Set<String> keys = new HashSet<>();
            v.selection().matched().stream().filter(c -> taken.contains(Ownership.deviceId(c)))
                    .forEach(c -> keys.add(c.key()));
            keys.forEach(k -> unusable.put(k, reason));
            conflicted = Set.copyOf(keys);
            return new PoolView(v.revision(), v.devices().stream().map(d -> unusable.containsKey(d.id())
                    ? new Device(d.id(), false, d.numaNodes()) : d).toList(), v.selection(), unusable, v.healthy(),
                    v.reason(), v.details());
        }
        return new PoolView(v.revision(), v.devices().stream().map(d -> new Device(d.id(), false, d.numaNodes()))
                .toList(), v.selection(), v.unusable(), false, reason, v.details());
    }

    /**
     * {@code v} without the devices kubelet holds under another resource (running pods got them from another
     * pool): kubelet's book is per resource name, so offering one here would hand it to a second pod.
     */
    private PoolView unheld(PoolView v) {
        if (!pool.exclusive()) {
            return v;                                     // a shared pool's IDs are its own resource's
        }
        Map<String, String> heldBy = held.heldBy();
        String mine = pool.resourceName();
        List<Device> offered = v.devices().stream().filter(d -> mine.equals(heldBy.getOrDefault(d.id(), mine)))
                .toList();
        if (offered.size() == v.devices().size()) {
            return v;
        }
        Map<String, String> unusable = new LinkedHashMap<>(v.unusable());
        v.devices().stream().filter(d -> !offered.contains(d)).forEach(d -> unusable.put(d.id(),
                "held under " + heldBy.get(d.id()) + "; offered once it is released"));
        return new PoolView(v.revision(), offered, v.selection(), unusable, v.healthy(), v.reason(), v.details());
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
        PreferredAnswer.check(pool.resourceName(), available, mustInclude, size);
        List<String> preferred = pool.preferredAllocation(view, available, mustInclude, size);
        List<String> answer = PreferredAnswer.of(preferred, available, mustInclude, size);
        if (!answer.containsAll(preferred)) {
            REFUSALS.warn("preferred:" + pool.resourceName(),
                    "preferred allocation corrected pool={} resource={}: the pool preferred {}, answered {}",
                    pool.name(), pool.resourceName(), LogText.escape(preferred.toString()),
                    LogText.escape(answer.toString()));
        }
        return answer;
    }

    @Override
    public ContainerAllocation allocate(List<String> deviceIds) {
        String conflict = ownershipConflict;
        if (!conflict.isEmpty() && (!pool.exclusive() || deviceIds.stream().anyMatch(conflicted::contains))) {
            allocationFailures.incrementAndGet();
            throw new DevicePluginException(DevicePluginException.Code.UNAVAILABLE, pool.resourceName(),
                    "pool " + pool.name() + " cannot serve: " + conflict);
        }
        String mine = pool.resourceName();
        Map<String, String> heldBy = held.heldBy();
        List<String> elsewhere = !pool.exclusive() ? List.<String>of()
                : deviceIds.stream().filter(id -> !mine.equals(heldBy.getOrDefault(id, mine))).toList();
        if (!elsewhere.isEmpty()) {
            allocationFailures.incrementAndGet();
            throw new DevicePluginException(DevicePluginException.Code.UNAVAILABLE, mine, "device(s) " + elsewhere
                    + " are held under " + elsewhere.stream().map(heldBy::get).distinct()
                    .toList() + ", not " + mine);
        }
        // Recorded before the pool answers (and writes its files), forgotten if it refuses.
        List<String> recorded = held.allocated(mine, deviceIds);
        try {
            PoolView v = view;
            ContainerAllocation a = pool.allocate(v, deviceIds);
            if (deviceInfo.isPresent()) {
                deviceInfo.get().allocated(v, deviceIds);
            }
            allocations.incrementAndGet();
            lastAllocation = List.copyOf(deviceIds);
            return a;
        } catch (RuntimeException e) {
            held.forget(mine, recorded);
            allocationFailures.incrementAndGet();
            REFUSALS.warn("allocate:" + pool.resourceName(), "allocate refused pool={} resource={} ids={}: {}",
                    pool.name(), pool.resourceName(), LogText.escape(deviceIds.toString()),
                    LogText.escape(String.valueOf(e.getMessage())));
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
        Map<String, Object> details = v.details();
        String problem = deviceInfo.map(HeldDeviceInfo::problem).orElse("");
        if (!problem.isEmpty()) {
            details = new LinkedHashMap<>(details);
            details.put("deviceInfoProblem", problem);
        }
        return new PoolStatus(pool.name(), pool.resourceName(), v.healthy(), v.reason(), served.registered(),
                v.selection().matchedKeys(), v.selection().exclusionReasons(), v.unusable(), allocations.get(),
                allocationFailures.get(), lastAllocation, details);
    }

    @Override
    public void retire() {
        stop(true);
    }

    @Override
    public void close() {
        stop(false);
    }

    private void stop(boolean retired) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        owners.remove(this);
        owners.release(pool.resourceName());
        served.close();
        // No device-info file and no CDI spec goes here: a pod may restart a container at any moment, and the next
        // instance (a restart, a handover, the pool edited) takes them over.
        try {
            pool.stopped();
        } catch (RuntimeException e) {
            LOG.warn("pool cleanup failed pool={}: {}", pool.name(), e.getMessage());
        }
        set.stopped(pool, retired);
        set.removed(this);                       // after stopped(): a pool may keep its devices a moment longer
        LOG.info("pool {} pool={} resource={}", retired ? "retired" : "stopped", pool.name(), pool.resourceName());
    }
}
