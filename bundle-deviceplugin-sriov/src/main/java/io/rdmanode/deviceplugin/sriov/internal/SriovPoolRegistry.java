// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import io.rdmanode.health.StatusSection;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.TreeMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * The bundle's pools together ({@link SriovPools}: a VF goes to the first matching pool, so pools are
 * assigned as a whole) and its {@code /status} section {@code deviceplugin.sriov}: every pool, and for every
 * VF of the host the pool that took it or why none did. The RDMA ledger lives in
 * {@code <rdma.agent.stateDir>/deviceplugin-sriov/rdma-vfs}. Its READY check fails while a pool's
 * configuration is refused or the ledger cannot be written. While the RDMA CNI plugin runs, the VFs whose RDMA
 * device it placed in a pod name that pod, and {@code placements} lists them with their pools.
 */
@Component(service = {SriovPoolRegistry.class, StatusSection.class, HealthCheck.class})
public final class SriovPoolRegistry implements StatusSection, HealthCheck {

    static final String STATE_DIR_PROPERTY = "rdma.agent.stateDir";
    static final String DEFAULT_STATE_DIR = "/var/lib/rdma-node-agent";

    private final SriovPools pools;
    private final Map<String, String> refused = new ConcurrentSkipListMap<>();

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
               policyOption = ReferencePolicyOption.GREEDY)
    volatile PodPlacements placements;

    @Activate
    public SriovPoolRegistry(BundleContext context, @Reference RdmaDiscovery discovery,
                             @Reference DevicePluginLayer layer) {
        this(discovery, layer,
                Path.of(Optional.ofNullable(context.getProperty(STATE_DIR_PROPERTY)).orElse(DEFAULT_STATE_DIR)));
    }

    SriovPoolRegistry(RdmaDiscovery discovery, DevicePluginLayer layer, Path stateDir) {
        this.pools = new SriovPools(discovery, layer,
                new RdmaVfLedger(stateDir.resolve("deviceplugin-sriov/rdma-vfs")));
    }

    public SriovPools pools() {
        return pools;
    }

    void refused(String pool, String problem) {
        refused.put(pool, problem);
    }

    void notRefused(String pool) {
        refused.remove(pool);
    }

    @Deactivate
    void stop() {
        pools.close();
    }

    @Override
    public String name() {
        return "deviceplugin.sriov";
    }

    @Override
    public Kind kind() {
        return Kind.READY;
    }

    @Override
    public HealthStatus check() {
        if (!refused.isEmpty()) {
            return HealthStatus.failing("pool(s) refused: " + refused);
        }
        if (!pools.ledgerProblem().isEmpty()) {
            return HealthStatus.failing(pools.ledgerProblem());
        }
        // A pool whose CDI spec cannot be written answers every Allocate UNAVAILABLE: not ready, and /readyz says why.
        java.util.List<String> cdi = pools.pools().stream().map(SriovPools.Handle::status)
                .filter(p -> p.get("cdiProblem") != null).map(p -> "pool " + p.get("name") + ": " + p.get("cdiProblem"))
                .toList();
        return cdi.isEmpty() ? HealthStatus.ok(pools.pools().size() + " pool(s) serving")
                : HealthStatus.failing(String.join("; ", cdi));
    }

    private static Map<String, Object> placement(PodPlacements.Placement pl, String vfLine) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pod", pl.pod());
        m.put("vf", pl.vf());
        m.put("rdmaDevice", pl.rdmaDevice());
        // "pool <name>..." from the assignment; a VF no pool of this bundle serves is still listed.
        m.put("pool", vfLine != null && vfLine.startsWith("pool ") ? vfLine.substring(5).split("[ ,]", 2)[0] : "");
        m.put("netns", pl.netns());
        m.put("since", pl.since());
        return m;
    }

    @Override
    public Object status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pools", pools.pools().stream().map(SriovPools.Handle::status).toList());
        if (!refused.isEmpty()) {
            m.put("refused", Map.copyOf(refused));
        }
        PodPlacements p = placements;
        List<PodPlacements.Placement> placed = p == null ? List.of() : p.placements();
        Map<String, String> vfs = new TreeMap<>(pools.vfStatus());
        for (PodPlacements.Placement pl : placed) {
            vfs.computeIfPresent(pl.vf(), (vf, line) -> line + ", in pod " + pl.pod());
        }
        m.put("vfs", vfs);
        if (p != null) {
            m.put("placements", placed.stream().map(pl -> placement(pl, pools.vfStatus().get(pl.vf()))).toList());
        }
        if (!pools.ledgerProblem().isEmpty()) {
            m.put("ledgerProblem", pools.ledgerProblem());
        }
        return m;
    }
}
