// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.deviceplugin.CdiRuntime;
import io.rdmanode.deviceplugin.CdiSpec;
import io.rdmanode.deviceplugin.DeviceFile;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.Ownership;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.TopologyDiff;
import io.rdmanode.kubelet.DevicePluginHost;
import io.rdmanode.kubelet.ServedResource;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every SR-IOV pool of the agent, assigned together because a VF goes to the first pool that matches. Every
 * discovery change (a VF count change, a PF hot-plugged, a port down, a VF's RDMA device moving into a pod)
 * and every pool added or removed recomputes the assignment, writes the RDMA ledger when it changed and pushes
 * the new device list of each pool whose list changed to kubelet: no restart for any of it. Thread-safe;
 * discovery calls {@link #topologyChanged} on its thread.
 */
public final class SriovPools implements RdmaTopologyListener, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SriovPools.class);

    /** One pool being served. */
    public final class Handle {
        private final SriovPoolSettings settings;
        private final VfMatcher matcher;
        private final SriovVfPool pool;
        private ServedResource served;

        private Handle(SriovPoolSettings settings, VfMatcher matcher, SriovVfPool pool) {
            this.settings = settings;
            this.matcher = matcher;
            this.pool = pool;
        }

        public SriovVfPool pool() {
            return pool;
        }

        public Map<String, Object> status() {
            Map<String, Object> m = new LinkedHashMap<>(pool.status());
            ServedResource s = served;
            m.put("registered", s != null && s.registered());
            return m;
        }
    }

    /** How long a removed pool keeps its VFs from later pools (a reconfigured pool comes back within it). */
    static final long RESERVE_MILLIS = 2000;

    /** A pool just removed: its VFs stay out of other pools for a moment (see {@link #remove}). */
    private record Reserved(SriovPoolSettings settings, VfMatcher matcher, long until) { }

    private final RdmaDiscovery discovery;
    private final DevicePluginLayer layer;
    private final RdmaVfLedger ledger;
    private final List<Handle> pools = new ArrayList<>();
    private final Map<String, Reserved> reserved = new LinkedHashMap<>();
    /**
     * VFs allocated by pools since stopped, to their extended resource name: kubelet still counts them as
     * that resource in running containers, so a config edit must not hand them to another resource. Kept while
     * a pool (or a just-removed pool's reservation) has that resource name; dropped when none does (the pool
     * is gone from the configuration, kubelet drops the resource) or the VF leaves the host.
     */
    private final Map<String, String> held = new LinkedHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "rdma-agent-deviceplugin-sriov-reserve");
        t.setDaemon(true);
        return t;
    });
    private volatile PoolAssignment assignment;
    private volatile String ledgerProblem = "";

    /** Where the node's runtime configuration is looked for (the CDI check). */
    static final Path NODE_ROOT = Path.of("/");

    private final Path nodeRoot;

    public SriovPools(RdmaDiscovery discovery, DevicePluginLayer layer, RdmaVfLedger ledger) {
        this(discovery, layer, ledger, NODE_ROOT);
    }

    /** @param nodeRoot where the node's {@code /etc} is looked for the runtime's CDI support (tests: a tree) */
    SriovPools(RdmaDiscovery discovery, DevicePluginLayer layer, RdmaVfLedger ledger, Path nodeRoot) {
        this.nodeRoot = nodeRoot;
        this.discovery = discovery;
        this.layer = layer;
        this.ledger = ledger;
        discovery.addListener(this);
        recompute(discovery.snapshot());
    }

    /**
     * Starts serving a pool: its VFs are assigned before its socket opens, so kubelet's first ListAndWatch is
     * complete. Device-info files of this resource for VFs it does not hold are removed (left by a stopped
     * agent).
     *
     * @throws IllegalArgumentException when the host already serves the resource name
     */
    public synchronized Handle add(SriovPoolSettings settings, VfMatcher matcher, DevicePluginHost host) {
        Optional<CdiSpec> cdi = settings.cdiSpecDir()
                .map(dir -> layer.cdiSpec(dir, SriovVfPool.CDI_KIND, settings.name()));
        Optional<CdiRuntime.Finding> cdiRuntime = Optional.empty();
        if (cdi.isPresent()) {
            CdiRuntime.Finding f = CdiRuntime.detect(nodeRoot);
            cdiRuntime = Optional.of(f);
            LOG.warn("pool uses CDI pool={} specDir={}: {}; detected {}: {}", settings.name(),
                    settings.cdiSpecDir().get(), CdiRuntime.REQUIREMENT, f.verdict(), f.detail());
        }
        Handle h = new Handle(settings, matcher, new SriovVfPool(settings, layer.paths(), cdi, cdiRuntime));
        reserved.remove(settings.name());
        pools.add(h);
        pools.sort(Comparator.comparingInt((Handle p) -> p.settings.order()).thenComparing(p -> p.settings.name()));
        try {
            recompute(discovery.snapshot());
            h.served = host.serve(h.pool);
        } catch (RuntimeException e) {
            pools.remove(h);
            layer.release(settings.extendedResourceName());      // a pool of that name still there claims again
            recompute(discovery.snapshot());
            h.pool.removeCdiSpec();
            throw e;
        }
        List<String> stale = h.pool.removeStaleDeviceInfo();
        if (!stale.isEmpty()) {
            LOG.info("removed stale device-info files pool={} vfs={}", settings.name(), stale);
        }
        LOG.info("pool serving pool={} resource={} vfs={} healthy={}", settings.name(),
                settings.extendedResourceName(), h.pool.vfs().size(),
                h.pool.vfs().values().stream().filter(PooledVf::healthy).count());
        return h;
    }

    /**
     * Stops serving a pool and removes its device-info files. Its VFs go to a later matching pool only after
     * {@value #RESERVE_MILLIS} ms: a configuration edit of a pool is a removal and an add a few milliseconds
     * apart, and in between a later pool must not advertise (and kubelet must not hand out) VFs that return
     * to the edited pool, some of which its pods hold.
     */
    public synchronized void remove(Handle h) {
        if (!stop(h)) {
            return;
        }
        reserved.put(h.settings.name(), new Reserved(h.settings, h.matcher, System.nanoTime()
                + TimeUnit.MILLISECONDS.toNanos(RESERVE_MILLIS)));
        recompute(discovery.snapshot());
        timer.schedule(this::expireReservations, RESERVE_MILLIS, TimeUnit.MILLISECONDS);
    }

    private boolean stop(Handle h) {
        if (!pools.remove(h)) {
            return false;
        }
        if (h.served != null) {
            h.served.close();
        }
        layer.release(h.settings.extendedResourceName());
        h.pool.allocated().forEach(id -> held.put(id, h.settings.extendedResourceName()));
        h.pool.removeAllDeviceInfo();
        try {
            h.pool.removeCdiSpec();
        } catch (UncheckedIOException e) {
            LOG.warn("pool={}: {}", h.settings.name(), e.getMessage());
        }
        LOG.info("pool stopped pool={} resource={}", h.settings.name(), h.settings.extendedResourceName());
        return true;
    }

    private synchronized void expireReservations() {
        long now = System.nanoTime();
        if (reserved.values().removeIf(r -> now - r.until() >= 0)) {
            recompute(discovery.snapshot());
        }
    }

    @Override
    public void topologyChanged(HostSnapshot snapshot, TopologyDiff diff) {
        recompute(snapshot);
    }

    private synchronized void recompute(HostSnapshot snapshot) {
        record Ordered(SriovPoolSettings settings, VfMatcher matcher) { }
        List<Ordered> all = new ArrayList<>();
        pools.forEach(p -> all.add(new Ordered(p.settings, p.matcher)));
        reserved.values().forEach(r -> all.add(new Ordered(r.settings(), r.matcher())));
        all.sort(Comparator.comparingInt((Ordered o) -> o.settings().order()).thenComparing(o -> o.settings().name()));
        List<PoolAssignment.Rule> rules = all.stream().map(o -> new PoolAssignment.Rule(o.settings().name(),
                o.settings().extendedResourceName(), o.matcher())).toList();
        java.util.Set<String> resources = new java.util.HashSet<>();
        all.forEach(o -> resources.add(o.settings().extendedResourceName()));
        if (held.values().removeIf(r -> !resources.contains(r))) {
            LOG.info("allocated VFs of removed resources released; still held: {}", held);
        }
        Map<String, String> pins = new LinkedHashMap<>(held);
        pools.forEach(p -> p.pool.allocated().forEach(id -> pins.put(id, p.settings.extendedResourceName())));
        PoolAssignment next = PoolAssignment.of(rules, layer, snapshot, ledger.entries(), pins);
        held.keySet().retainAll(next.vfs().keySet());           // VFs gone from the host
        try {
            if (ledger.replace(next.ledger())) {
                LOG.debug("RDMA ledger written file={} vfs={}", ledger.file(), next.ledger().size());
            }
            ledgerProblem = "";
        } catch (UncheckedIOException e) {
            ledgerProblem = e.getMessage();
            LOG.warn("{}: VFs inside pods may leave their pool after a restart", e.getMessage());
        }
        DeviceFile rdmaCm = layer.rdmaCm(snapshot);
        for (Handle p : pools) {
            // The layer's line of the ownership rule: a VF a shared pool also names makes that pool Unhealthy.
            List<Ownership.Conflict> conflicts = layer.claim(new Ownership.Claim(p.settings.extendedResourceName(),
                    p.settings.name(), true, next.pool(p.settings.name()).stream().map(v -> v.vf().id())
                            .collect(java.util.stream.Collectors.toSet())));
            conflicts.forEach(c -> LOG.error("pool={}: {}", p.settings.name(), c.message()));
            int before = p.pool.vfs().size();
            if (p.pool.update(next.pool(p.settings.name()), rdmaCm) && p.served != null) {
                p.served.devicesChanged();
                int after = p.pool.vfs().size();
                if (before != after) {
                    LOG.info("pool changed pool={} vfs={} (was {})", p.settings.name(), after, before);
                }
            }
        }
        assignment = next;
    }

    public synchronized List<Handle> pools() {
        return List.copyOf(pools);
    }

    /** VFs whose RDMA device the ledger remembers (inside pods), for claims computed like {@link #recompute}. */
    public Map<String, VfRdma> remembered() {
        return ledger.entries();
    }

    public String ledgerProblem() {
        return ledgerProblem;
    }

    /** Per VF of the host: the pool that took it or why none did. */
    public Map<String, String> vfStatus() {
        PoolAssignment a = assignment;
        return a == null ? Map.of() : a.vfs();
    }

    @Override
    public synchronized void close() {
        discovery.removeListener(this);
        timer.shutdownNow();
        reserved.clear();
        for (Handle h : List.copyOf(pools)) {
            stop(h);
        }
    }
}
