// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.TopologyDiff;
import io.rdmanode.kubelet.DevicePluginHost;
import io.rdmanode.kubelet.ServedResource;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pool being served: the plugin, its server on the device-plugin host and its discovery subscription,
 * which pushes every change that alters the pool to kubelet.
 */
final class ServedPool implements RdmaTopologyListener {

    private static final Logger LOG = LoggerFactory.getLogger(ServedPool.class);

    private final RdmaDiscovery discovery;
    private final SharedPool pool;
    private final ServedResource served;

    /** @throws IllegalArgumentException when the host already serves the pool's resource name */
    ServedPool(PoolSettings settings, RdmaDiscovery discovery, DevicePluginHost host) {
        this.discovery = discovery;
        this.pool = new SharedPool(settings, discovery.snapshot());
        this.served = host.serve(pool);
        try {
            discovery.addListener(this);
            pool.update(discovery.snapshot());       // a change between the first read and addListener
            served.devicesChanged();
        } catch (RuntimeException e) {
            discovery.removeListener(this);
            served.close();
            throw e;
        }
        logState("serving");
    }

    @Override
    public void topologyChanged(HostSnapshot snapshot, TopologyDiff diff) {
        boolean wasHealthy = pool.state().healthy();
        if (pool.update(snapshot)) {
            served.devicesChanged();
            if (wasHealthy != pool.state().healthy()) {
                logState("changed");
            }
        }
    }

    private void logState(String what) {
        PoolState s = pool.state();
        if (s.healthy()) {
            LOG.info("pool {} pool={} resource={} hcas={} numa={}", what, pool.settings().name(),
                    pool.resourceName(), s.matched(), s.numaNodes());
        } else {
            LOG.warn("pool {} pool={} resource={} unhealthy: {}", what, pool.settings().name(), pool.resourceName(),
                    s.reason());
        }
    }

    Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>(pool.status());
        m.put("registered", served.registered());
        return m;
    }

    SharedPool pool() {
        return pool;
    }

    void close() {
        discovery.removeListener(this);
        served.close();
        try {
            pool.close();
        } catch (IOException e) {
            LOG.warn("cannot delete CDI spec of pool={}: {}", pool.settings().name(), e.getMessage());
        }
        LOG.info("pool stopped pool={} resource={}", pool.settings().name(), pool.resourceName());
    }
}
