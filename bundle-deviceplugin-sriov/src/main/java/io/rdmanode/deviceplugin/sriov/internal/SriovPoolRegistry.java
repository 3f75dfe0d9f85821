// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import io.rdmanode.health.StatusSection;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * The bundle's pools together ({@link SriovPools}: a VF goes to the first matching pool, so pools are
 * assigned as a whole) and its {@code /status} section {@code deviceplugin.sriov}: every pool, and for every
 * VF of the host the pool that took it or why none did. The RDMA ledger lives in
 * {@code <rdma.agent.stateDir>/deviceplugin-sriov/rdma-vfs}. Its READY check fails while a pool's
 * configuration is refused or the ledger cannot be written.
 */
@Component(service = {SriovPoolRegistry.class, StatusSection.class, HealthCheck.class})
public final class SriovPoolRegistry implements StatusSection, HealthCheck {

    static final String STATE_DIR_PROPERTY = "rdma.agent.stateDir";
    static final String DEFAULT_STATE_DIR = "/var/lib/rdma-node-agent";

    private final SriovPools pools;
    private final Map<String, String> refused = new ConcurrentSkipListMap<>();

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
        return HealthStatus.ok(pools.pools().size() + " pool(s) serving");
    }

    @Override
    public Object status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pools", pools.pools().stream().map(SriovPools.Handle::status).toList());
        if (!refused.isEmpty()) {
            m.put("refused", Map.copyOf(refused));
        }
        m.put("vfs", pools.vfStatus());
        if (!pools.ledgerProblem().isEmpty()) {
            m.put("ledgerProblem", pools.ledgerProblem());
        }
        return m;
    }
}
