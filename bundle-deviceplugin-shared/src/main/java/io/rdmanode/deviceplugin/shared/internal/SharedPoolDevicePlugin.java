// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.TopologyDiff;
import io.rdmanode.kubelet.DevicePluginHost;
import io.rdmanode.kubelet.ServedResource;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One shared-HCA pool ({@code deviceplugin.shared.pools = [ {name = ..., ...} ]}): serves it through the
 * device-plugin host and pushes every discovery change that alters it. Any configuration change means a new
 * socket and registration, so there is no {@code @Modified}: SCR deactivates and activates again, which is
 * what live reload of a pool is.
 */
@Component(service = {}, immediate = true, configurationPid = SharedPoolDevicePlugin.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = SharedPoolDevicePlugin.Config.class, factory = true)
public final class SharedPoolDevicePlugin implements RdmaTopologyListener {

    static final String PID = "io.rdmanode.deviceplugin.shared.pools";
    private static final Logger LOG = LoggerFactory.getLogger(SharedPoolDevicePlugin.class);

    @ObjectClassDefinition(name = "Shared RDMA device pool",
            description = "HCAs shared by every pod that asks for the pool's resource (k8s-rdma-shared-dev-plugin)")
    public @interface Config {
        @AttributeDefinition(description = "pool name; also the resource name unless resourceName is set")
        String name();

        @AttributeDefinition(description = "extended resource name without prefix; empty means the pool name")
        String resourceName() default "";

        @AttributeDefinition(description = "extended resource domain, as in rdma/hca_a")
        String resourcePrefix() default "rdma";

        @AttributeDefinition(description = "how many pods may share the pool's HCAs at once (device IDs advertised)",
                min = "1", max = "100000")
        int rdmaHcaMax() default 1000;

        @AttributeDefinition(description = "PCI vendor ids, e.g. 15b3")
        String[] selectors_vendors() default {};

        @AttributeDefinition(description = "PCI device ids, e.g. 1017")
        String[] selectors_deviceIDs() default {};

        @AttributeDefinition(description = "kernel drivers, e.g. mlx5_core")
        String[] selectors_drivers() default {};

        @AttributeDefinition(description = "netdev names of the HCAs, e.g. ens1f0")
        String[] selectors_ifNames() default {};

        @AttributeDefinition(description = "link types: ether, infiniband")
        String[] selectors_linkTypes() default {};

        @AttributeDefinition(description = "write a CDI spec and answer Allocate with CDI device names")
        boolean cdi() default false;

        @AttributeDefinition(description = "directory of dynamic CDI specs")
        String cdiSpecDir() default "/var/run/cdi";
    }

    private final RdmaDiscovery discovery;
    private final SharedPoolRegistry registry;
    private final SharedPool pool;
    private final ServedResource served;
    private final SharedPoolRegistry.PoolView view;

    @Activate
    public SharedPoolDevicePlugin(Config config, @Reference RdmaDiscovery discovery,
                                  @Reference DevicePluginHost host, @Reference SharedPoolRegistry registry) {
        this.discovery = discovery;
        this.registry = registry;
        this.pool = new SharedPool(settings(config), discovery.snapshot());
        this.served = host.serve(pool);
        this.view = this::status;
        try {
            discovery.addListener(this);
            pool.update(discovery.snapshot());      // a change between the first read and addListener
            served.devicesChanged();
            registry.add(config.name(), view);
        } catch (RuntimeException e) {
            discovery.removeListener(this);
            served.close();
            throw e;
        }
        logState("serving");
    }

    static PoolSettings settings(Config c) {
        Selectors selectors = new Selectors(List.of(c.selectors_vendors()), List.of(c.selectors_deviceIDs()),
                List.of(c.selectors_drivers()), List.of(c.selectors_ifNames()), List.of(c.selectors_linkTypes()));
        String resourceName = c.resourceName().isEmpty() ? c.name() : c.resourceName();
        return new PoolSettings(c.name(), c.resourcePrefix(), resourceName, c.rdmaHcaMax(), selectors,
                c.cdi() ? Optional.of(Path.of(c.cdiSpecDir())) : Optional.empty());
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

    private Map<String, Object> status() {
        Map<String, Object> m = new java.util.LinkedHashMap<>(pool.status());
        m.put("registered", served.registered());
        return m;
    }

    SharedPool pool() {
        return pool;
    }

    @Deactivate
    void stop() {
        discovery.removeListener(this);
        registry.remove(pool.settings().name(), view);
        served.close();
        try {
            pool.close();
        } catch (IOException e) {
            LOG.warn("cannot delete CDI spec of pool={}: {}", pool.settings().name(), e.getMessage());
        }
        LOG.info("pool stopped pool={} resource={}", pool.settings().name(), pool.resourceName());
    }
}
