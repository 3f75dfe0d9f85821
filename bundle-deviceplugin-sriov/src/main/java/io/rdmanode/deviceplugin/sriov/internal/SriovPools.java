// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.deviceplugin.CdiRuntime;
import io.rdmanode.deviceplugin.CdiSpec;
import io.rdmanode.deviceplugin.DeviceFile;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.PoolSet;
import io.rdmanode.deviceplugin.PoolStatus;
import io.rdmanode.deviceplugin.ResourcePool;
import io.rdmanode.deviceplugin.ServedPool;
import io.rdmanode.deviceplugin.ServedPoolSet;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.kubelet.DevicePluginHost;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every SR-IOV pool of the agent as one {@link PoolSet} of the device-plugin layer, assigned together because a
 * VF goes to the first pool that matches: the layer serves each pool (socket, registration, ListAndWatch,
 * ownership, counts) and, on every discovery change and every pool added or removed, calls {@link #prepare},
 * which computes the assignment and writes the RDMA ledger when it changed; each pool's view is its part of it.
 * A removed pool's VFs stay out of later pools for {@value #RESERVE_MILLIS} ms, and a VF a running container holds
 * (the layer's allocation ledger, reconciled with kubelet) stays with the resource it is held under, or out of
 * every pool when no pool of that resource is left, until its holder is gone. Thread-safe.
 */
public final class SriovPools implements PoolSet, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SriovPools.class);

    /** One pool being served. */
    public static final class Handle {
        private final SriovVfPool pool;
        private final ServedPool served;

        private Handle(SriovVfPool pool, ServedPool served) {
            this.pool = pool;
            this.served = served;
        }

        public SriovVfPool pool() {
            return pool;
        }

        public Map<String, Object> status() {
            PoolStatus s = served.status();
            Map<String, Object> m = new LinkedHashMap<>(pool.status());
            m.put("registered", s.registered());
            m.put("allocations", s.allocations());
            m.put("allocationFailures", s.allocationFailures());
            return m;
        }
    }

    /** How long a removed pool keeps its VFs from later pools (a reconfigured pool comes back within it). */
    static final long RESERVE_MILLIS = 2000;

    /** A pool just removed: its VFs stay out of other pools for a moment (see {@link SriovVfPool#stopped}). */
    private record Reserved(SriovPoolSettings settings, VfMatcher matcher, long until) { }

    /** Where the node's runtime configuration is looked for (the CDI check). */
    static final Path NODE_ROOT = Path.of("/");

    private final DevicePluginLayer layer;
    private final RdmaVfLedger ledger;
    private final Path nodeRoot;
    private final ServedPoolSet served;
    private final List<Handle> handles = new CopyOnWriteArrayList<>();
    private final Map<String, Reserved> reserved = new LinkedHashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "rdma-agent-deviceplugin-sriov-reserve");
        t.setDaemon(true);
        return t;
    });
    private volatile PoolAssignment assignment;
    private volatile DeviceFile rdmaCm;
    private volatile String ledgerProblem = "";
    private volatile boolean closing;

    public SriovPools(RdmaDiscovery discovery, DevicePluginLayer layer, RdmaVfLedger ledger) {
        this(discovery, layer, ledger, NODE_ROOT);
    }

    /** @param nodeRoot where the node's {@code /etc} is looked for the runtime's CDI support (tests: a tree) */
    SriovPools(RdmaDiscovery discovery, DevicePluginLayer layer, RdmaVfLedger ledger, Path nodeRoot) {
        this.nodeRoot = nodeRoot;
        this.layer = layer;
        this.ledger = ledger;
        HostSnapshot first = discovery.snapshot();
        prepare(first, List.of());                      // the ledger and /status before any pool serves
        this.served = layer.serve(this, discovery);
    }

    /**
     * Starts serving a pool: its VFs are assigned before its socket opens, so kubelet's first ListAndWatch is
     * complete; its device-info files are those of the VFs running containers hold under its resource.
     *
     * @throws IllegalArgumentException when the host already serves the resource name
     */
    public Handle add(SriovPoolSettings settings, VfMatcher matcher, DevicePluginHost host) {
        Optional<CdiSpec> cdi = settings.cdiSpecDir()
                .map(dir -> layer.cdiSpec(dir, SriovVfPool.CDI_KIND, settings.name(),
                        settings.extendedResourceName()));
        Optional<CdiRuntime.Finding> cdiRuntime = Optional.empty();
        if (cdi.isPresent()) {
            CdiRuntime.Finding f = CdiRuntime.detect(nodeRoot);
            cdiRuntime = Optional.of(f);
            LOG.warn("pool uses CDI pool={} specDir={}: {}; detected {}: {}", settings.name(),
                    settings.cdiSpecDir().get(), CdiRuntime.REQUIREMENT, f.verdict(), f.detail());
        }
        SriovVfPool pool = new SriovVfPool(settings, matcher, this, layer, cdi, cdiRuntime);
        synchronized (this) {
            reserved.remove(settings.name());          // the pool is back: its reservation is itself
        }
        ServedPool servedPool;
        try {
            servedPool = served.serve(pool, host);
        } catch (RuntimeException e) {
            pool.releaseCdiSpec();
            throw e;
        }
        Handle h = new Handle(pool, servedPool);
        handles.add(h);
        return h;
    }

    /**
     * Stops serving a pool; device-info files of VFs running containers hold stay. Its VFs go to a later matching pool only after
     * {@value #RESERVE_MILLIS} ms: a configuration edit of a pool is a removal and an add a few milliseconds
     * apart, and in between a later pool must not advertise (and kubelet must not hand out) VFs that return
     * to the edited pool, some of which its pods hold.
     */
    public void remove(Handle h) {
        stop(h, 0);
    }

    /**
     * Stops a pool as its component's deactivation {@code reason} asks ({@link ServedPool#stop(int)}): retired when
     * its configuration was modified or deleted, so its CDI spec and device-info files go once released.
     */
    public void stop(Handle h, int reason) {
        if (handles.remove(h)) {
            h.served.stop(reason);                     // the layer calls SriovVfPool.stopped, then prepares again
        }
    }

    /** {@code pool} stopped serving: reserve its VFs a moment. */
    void stopped(SriovVfPool pool) {
        SriovPoolSettings s = pool.settings();
        synchronized (this) {
            if (closing) {
                return;
            }
            reserved.put(s.name(), new Reserved(s, pool.matcher(), System.nanoTime()
                    + TimeUnit.MILLISECONDS.toNanos(RESERVE_MILLIS)));
        }
        try {
            timer.schedule(this::expireReservations, RESERVE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return;                                    // closing
        }
        LOG.info("pool stopped pool={} resource={}", s.name(), s.extendedResourceName());
    }

    private void expireReservations() {
        long now = System.nanoTime();
        boolean expired;
        synchronized (this) {
            expired = reserved.values().removeIf(r -> now - r.until() >= 0);
        }
        if (expired) {
            served.refresh();
        }
    }

    /**
     * The assignment of {@code snapshot}'s VFs to the members and the reserved pools, in configuration order;
     * the RDMA ledger written when it changed. Each member's {@link SriovVfPool#compute} then reads its part.
     */
    @Override
    public synchronized void prepare(HostSnapshot snapshot, List<ResourcePool> members) {
        record Ordered(SriovPoolSettings settings, VfMatcher matcher) { }
        List<SriovVfPool> pools = members.stream().map(SriovVfPool.class::cast).toList();
        List<Ordered> all = new ArrayList<>();
        pools.forEach(p -> all.add(new Ordered(p.settings(), p.matcher())));
        reserved.values().forEach(r -> all.add(new Ordered(r.settings(), r.matcher())));
        all.sort(Comparator.comparingInt((Ordered o) -> o.settings().order()).thenComparing(o -> o.settings().name()));
        List<PoolAssignment.Rule> rules = all.stream().map(o -> new PoolAssignment.Rule(o.settings().name(),
                o.settings().extendedResourceName(), o.matcher())).toList();
        PoolAssignment next = PoolAssignment.of(rules, layer, snapshot, ledger.entries(), layer.held());
        try {
            if (ledger.replace(next.ledger())) {
                LOG.debug("RDMA ledger written file={} vfs={}", ledger.file(), next.ledger().size());
            }
            ledgerProblem = "";
        } catch (UncheckedIOException e) {
            ledgerProblem = e.getMessage();
            LOG.warn("{}: VFs inside pods may leave their pool after a restart", e.getMessage());
        }
        rdmaCm = layer.rdmaCm(snapshot);
        assignment = next;
    }

    /** The latest prepared assignment. */
    PoolAssignment assignment() {
        return assignment;
    }

    /** {@code /dev/infiniband/rdma_cm} on the latest prepared snapshot. */
    DeviceFile rdmaCm() {
        return rdmaCm;
    }

    public List<Handle> pools() {
        return List.copyOf(handles);
    }

    /** VFs whose RDMA device the ledger remembers (inside pods), for claims computed like {@link #prepare}. */
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
    public void close() {
        synchronized (this) {
            closing = true;
            reserved.clear();
        }
        timer.shutdownNow();
        handles.clear();
        served.close();
    }
}
