// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.deviceplugin.CandidateDevice;
import io.rdmanode.deviceplugin.CdiSpec;
import io.rdmanode.deviceplugin.DeviceFile;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.Granularity;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.deviceplugin.Ownership;
import io.rdmanode.deviceplugin.PoolSet;
import io.rdmanode.deviceplugin.ResourcePool;
import io.rdmanode.deviceplugin.ServedPool;
import io.rdmanode.deviceplugin.ServedPoolSet;
import io.rdmanode.deviceplugin.StatusRegistry;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.kubelet.DevicePluginHost;
import io.rdmanode.kubelet.PodDevices;
import io.rdmanode.kubelet.PodHoldings;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The layer's implementation, used by the OSGi component; tests and tools construct it directly. */
public final class Layer implements DevicePluginLayer {

    private static final Logger LOG = LoggerFactory.getLogger(Layer.class);
    /** How often the allocation ledger asks kubelet which holders are gone. */
    static final long RECONCILE_SECONDS = 10;
    /**
     * How long a CDI spec found at start waits for its pool to claim it before it counts as not configured (the
     * configuration is applied and every pool started well within it, also on a loaded node).
     */
    static final Duration SETTLE = Duration.ofSeconds(30);

    private final LayerSettings settings;
    private final CdiSpecs cdi;
    private final LiveOwners owners = new LiveOwners();
    private final HeldDevices held;
    private final List<ServedSet> sets = new CopyOnWriteArrayList<>();
    private final DeviceInfoDirs deviceInfoDirs;
    private final java.util.function.BooleanSupplier handedOver;
    private final ScheduledExecutorService reconciler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "rdma-agent-deviceplugin-ledger");
        t.setDaemon(true);
        return t;
    });

    /** A layer that keeps its allocation ledger in memory and asks no kubelet (tools that serve nothing). */
    public Layer(LayerSettings settings) {
        this(settings, AllocationLedger.inMemory(), Optional.empty(), HeldDevices.Kubelet.NONE,
                Duration.ofSeconds(RECONCILE_SECONDS), SETTLE, () -> false);
    }

    /**
     * The agent's layer: its allocation ledger in {@code ledgerFile}, reconciled with what {@code kubelet} says
     * running containers hold now, before every pool set change and every {@value #RECONCILE_SECONDS} s.
     */
    public Layer(LayerSettings settings, Path ledgerFile, PodDevices kubelet) {
        this(settings, ledgerFile, kubelet, Duration.ofSeconds(RECONCILE_SECONDS));
    }

    /** As above, asking kubelet every {@code reconcileEvery} (tests that wait for a holder to go). */
    public Layer(LayerSettings settings, Path ledgerFile, PodDevices kubelet, Duration reconcileEvery) {
        this(settings, ledgerFile, kubelet, reconcileEvery, SETTLE);
    }

    /** As above; a CDI spec found at start counts as not configured once no pool claimed it for {@code settle}. */
    public Layer(LayerSettings settings, Path ledgerFile, PodDevices kubelet, Duration reconcileEvery,
                 Duration settle) {
        this(settings, ledgerFile, () -> Optional.of(kubelet), reconcileEvery, settle, () -> false);
    }

    /**
     * The agent's layer when kubelet's {@code PodDevices} comes and goes (the OSGi component: the kubelet host
     * that offers it starts serving pools while it activates, so the layer cannot wait for it):
     * {@link #reconcileNow} once it is there.
     */
    Layer(LayerSettings settings, Path ledgerFile, Supplier<Optional<PodDevices>> kubelet, Duration reconcileEvery,
          Duration settle, java.util.function.BooleanSupplier handedOver) {
        this(settings, AllocationLedger.at(ledgerFile, Clock.systemUTC()),
                Optional.of(ledgerFile.resolveSibling(CDI_INDEX)), () -> {
            PodHoldings h = kubelet.get().orElseThrow(() -> new IllegalStateException(
                    "kubelet's PodDevices service is not there (yet)")).running();
            return new HeldDevices.Kubelet.Answer(h.devices().stream().map(d -> new AllocationLedger.Holding(
                    d.resourceName(), d.deviceId(), d.podKey() + "/" + d.container())).toList(),
                    h.source().name() + (h.fallbackReason().isEmpty() ? "" : " (" + h.fallbackReason() + ")"));
        }, reconcileEvery, settle, handedOver);
    }

    /** The index of CDI specs to their resources, beside the ledger ({@link CdiSpecs}). */
    static final String CDI_INDEX = "cdi-specs";
    /** The device-info directories of pools and their resources, beside the ledger ({@link DeviceInfoDirs}). */
    static final String DEVICE_INFO_INDEX = "deviceinfo-dirs";

    Layer(LayerSettings settings, AllocationLedger ledger, Optional<Path> cdiIndex, HeldDevices.Kubelet kubelet,
          Duration reconcileEvery, Duration settle, java.util.function.BooleanSupplier handedOver) {
        this.settings = settings;
        this.handedOver = handedOver;
        this.cdi = new CdiSpecs(settings.cdiSpecDirs(), cdiIndex, settle);
        this.deviceInfoDirs = new DeviceInfoDirs(cdiIndex.map(i -> i.resolveSibling(DEVICE_INFO_INDEX)), settle);
        this.held = new HeldDevices(ledger, kubelet, handedOver);
        held.claimsFrom(owners::claims);
        held.reconcile("start");
        sweep();
        if (kubelet != HeldDevices.Kubelet.NONE) {           // nothing to ask: no thread waking every period
            reconciler.scheduleWithFixedDelay(this::reconcileAndRefresh, reconcileEvery.toMillis(),
                    reconcileEvery.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void reconcileAndRefresh() {
        try {
            boolean merged = held.adoptWrittenElsewhere();        // a predecessor's last records
            boolean refused = held.takeRefusedRemovals();         // files kept while this was not the writer
            if (held.reconcile("periodic") || merged || refused) {
                sets.forEach(ServedSet::refresh);
            }
            sweep();
        } catch (RuntimeException e) {
            LOG.error("allocation ledger reconciliation failed", e);
        }
    }

    /**
     * Removes what retired or unconfigured pools left once nothing of them is held: only with kubelet's word on
     * the holders (asked in this process), and never once a successor owns the state directory.
     */
    private void sweep() {
        if (!held.known() || !held.mayRemoveFiles()) {
            return;
        }
        cdi.sweep(held.heldBy());
        deviceInfoDirs.sweep(held.heldBy());
    }

    /** {@code pool} serves: it keeps its device-info files itself. */
    void serving(ResourcePool pool) {
        pool.deviceInfoDir().ifPresent(d -> deviceInfoDirs.serving(d, pool.resourceName()));
    }

    /**
     * {@code pool} stopped. When {@code retired} (its configuration is gone), its unclaimed CDI specs and its
     * device-info files go as its devices are released (a sweep right after a reconciliation, now).
     */
    void stopped(ResourcePool pool, boolean retired) {
        pool.deviceInfoDir().ifPresent(d -> deviceInfoDirs.stopped(d, pool.resourceName(), retired));
        if (retired) {
            retire(pool.resourceName());
        }
    }

    /** The CDI specs of {@code resource} no pool claims go once its devices are released (a sweep now). */
    void retire(String resource) {
        cdi.retire(resource);
        reconcileNow();
    }

    /** Reconciles now (kubelet's PodDevices just came) and recomputes every pool set if the ledger changed. */
    void reconcileNow() {
        try {
            reconciler.execute(this::reconcileAndRefresh);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            // the layer is stopping
        }
    }

    /** Reconciles before a pool set change is published; the set recomputes right after. */
    void reconcileBeforeChange() {
        held.reconcile("pool change");
    }

    /**
     * This instance handed the state directory to a successor ({@code Handover.onHandedOver}): its ledger
     * stops writing the file; Allocates that still reach it are served (see {@link HeldDevices#allocated}).
     */
    public void handedOver() {
        held.handedOver();
    }

    /** Merges into the ledger what a predecessor wrote to the file since this layer read it (also done before
     * every write and reconciliation); a successor calls it when it takes over. */
    public void adoptLedger() {
        if (held.adoptWrittenElsewhere()) {
            sets.forEach(ServedSet::refresh);
        }
    }

    HeldDevices heldDevices() {
        return held;
    }

    void forget(ServedSet set) {
        sets.remove(set);
    }

    @Override
    public LayerSettings settings() {
        return settings;
    }

    @Override
    public List<CandidateDevice> candidates(HostSnapshot host, Granularity granularity) {
        return Candidates.of(host, granularity);
    }

    @Override
    public DeviceFile rdmaCm(HostSnapshot host) {
        return Candidates.rdmaCm(host);
    }

    @Override
    public ServedPool serve(ResourcePool pool, RdmaDiscovery discovery, DevicePluginHost host) {
        ServedSet alone = track(new ServedSet(PoolSet.INDEPENDENT, discovery, this, true));
        try {
            return alone.serve(pool, host);
        } catch (RuntimeException e) {
            alone.close();
            throw e;
        }
    }

    @Override
    public ServedPoolSet serve(PoolSet set, RdmaDiscovery discovery) {
        return track(new ServedSet(set, discovery, this, false));
    }

    private ServedSet track(ServedSet set) {
        sets.add(set);
        return set;
    }

    LiveOwners owners() {
        return owners;
    }

    @Override
    public Map<String, String> held() {
        return held.heldBy();
    }

    @Override
    public Map<String, String> heldOutside() {
        return held.outside();
    }

    @Override
    public OutsideHolder outsideHolder(String name) {
        return new OutsideHolder() {
            private volatile boolean closed;

            @Override
            public Map<String, String> hold(java.util.Collection<String> deviceIds) {
                if (closed) {
                    throw new IllegalStateException("outside holder " + name + " is closed");
                }
                Map<String, String> conflicts = held.holdOutside(name, List.copyOf(deviceIds));
                if (conflicts.isEmpty() && !deviceIds.isEmpty()) {
                    LOG.info("devices held outside the device-plugin pools holder={} devices={}: no pool offers them",
                            name, deviceIds);
                    sets.forEach(ServedSet::refresh);     // ListAndWatch lists them as unavailable at once
                }
                return conflicts;
            }

            @Override
            public void release(java.util.Collection<String> deviceIds) {
                held.releaseOutside(name, List.copyOf(deviceIds));
                LOG.info("devices released outside the device-plugin pools holder={} devices={}", name, deviceIds);
                sets.forEach(ServedSet::refresh);
            }

            @Override
            public void close() {
                if (!closed) {
                    closed = true;
                    held.releaseOutside(name, null);
                    sets.forEach(ServedSet::refresh);
                }
            }
        };
    }

    /** The ledger, for {@code /status}. */
    public Map<String, Object> heldStatus() {
        return held.status();
    }

    /** Devices held now, for the metric. */
    public int heldCount() {
        return held.size();
    }

    @Override
    public CdiSpec cdiSpec(Path dir, String kind, String owner, String resourceName) {
        return cdi.spec(dir, kind, owner, resourceName);
    }

    @Override
    public List<Ownership.Conflict> claim(Ownership.Claim claim) {
        return owners.claim(claim);
    }

    @Override
    public void release(String resourceName) {
        owners.release(resourceName);
    }

    /** The live table, for {@code /status}. */
    public Map<String, Ownership.Claim> claims() {
        return owners.claims();
    }

    @Override
    public StatusRegistry statusRegistry() {
        return new Registry();
    }

    /**
     * Stops the ownership table's notifier and the ledger's reconciliation, waiting (briefly) for a sweep in
     * progress: it writes the ledger and the CDI index, and must not do so after the layer is gone.
     */
    public void close() {
        reconciler.shutdownNow();
        try {
            if (!reconciler.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS)) {
                LOG.warn("the ledger's reconciliation did not stop within 5 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        owners.close();
    }

    /** CDI specs removed since this layer started, each with why, for {@code /status}. */
    public List<String> cdiSpecsRemoved() {
        return cdi.removed();
    }

    /** CDI specs on disk that no pool of this process writes now, each with why it stays, for {@code /status}. */
    public Map<String, String> cdiSpecsKept() {
        return cdi.unclaimed(held.known());
    }
}
