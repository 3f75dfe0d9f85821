// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.agent.SettingException;
import io.rdmanode.deviceplugin.CdiRuntime;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.PoolConfigurations;
import io.rdmanode.deviceplugin.Selectors;
import io.rdmanode.deviceplugin.ServedPool;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.kubelet.DevicePluginHost;
import java.nio.file.Path;
import java.util.List;
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
 * device-plugin host through the device-plugin layer ({@link ServedPool}: recomputed on topology changes) and
 * shows it in the bundle's status. Any configuration change means a new
 * socket and registration, so there is no {@code @Modified}: SCR deactivates and activates again, which is
 * what live reload of a pool is.
 */
@Component(service = {}, immediate = true, configurationPid = SharedPoolDevicePlugin.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = SharedPoolDevicePlugin.Config.class, factory = true)
public final class SharedPoolDevicePlugin {

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
        String resourcePrefix() default PoolConfigurations.DEFAULT_RESOURCE_PREFIX;

        @AttributeDefinition(description = "device IDs advertised: how many containers requesting one ID each may"
                + " share the pool's HCAs at once (kubelet allocates per container; init containers' IDs are reused"
                + " by the pod's app containers)", min = "1", max = "100000")
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

    /** Where the node's runtime configuration is looked for (the CDI check); "/" unless a test says otherwise. */
    static final Path NODE_ROOT = Path.of("/");

    private final String name;
    private final SharedPoolRegistry registry;
    private final ServedPool serving;                  // null when the pool's configuration was refused

    @Activate
    public SharedPoolDevicePlugin(Config config, @Reference RdmaDiscovery discovery,
                                  @Reference DevicePluginHost host, @Reference DevicePluginLayer layer,
                                  @Reference SharedPoolRegistry registry) {
        this(config, discovery, host, layer, registry, NODE_ROOT);
    }

    SharedPoolDevicePlugin(Config config, RdmaDiscovery discovery, DevicePluginHost host, DevicePluginLayer layer,
                           SharedPoolRegistry registry, Path nodeRoot) {
        this.name = config.name();
        this.registry = registry;
        ServedPool started = null;
        try {
            PoolSettings settings = settings(config);
            Optional<CdiRuntime.Finding> cdiRuntime = Optional.empty();
            if (settings.cdiSpecDir().isPresent()) {
                CdiRuntime.Finding f = CdiRuntime.detect(nodeRoot);
                cdiRuntime = Optional.of(f);
                LOG.warn("pool uses CDI pool={} specDir={}: {}; detected {}: {}", name, settings.cdiSpecDir().get(),
                        CdiRuntime.REQUIREMENT, f.verdict(), f.detail());
            }
            started = layer.serve(new SharedPool(settings, layer, cdiRuntime), discovery, host);
            registry.add(name, started);
        } catch (IllegalArgumentException e) {
            // Input MetaType cannot check (resource name syntax, ID length, a resource name taken by another
            // pool): refused with the reason in the log, /status and /readyz rather than a failed activation
            // whose cause SCR wraps.
            String problem = e.getMessage();
            LOG.error("pool refused pool={}: {}", name, problem);
            registry.refused(name, problem);
        }
        this.serving = started;
    }

    /** @throws SettingException naming the property of the first value the pool refuses */
    static PoolSettings settings(Config c) {
        Selectors selectors;
        try {
            selectors = Selectors.of(List.of(c.selectors_vendors()), List.of(c.selectors_deviceIDs()),
                    List.of(c.selectors_drivers()), List.of(c.selectors_ifNames()), List.of(c.selectors_linkTypes()));
        } catch (SettingException e) {
            throw e.within("selectors");
        }
        String resourceName = c.resourceName().isEmpty() ? c.name() : c.resourceName();
        return new PoolSettings(c.name(), c.resourcePrefix(), resourceName, c.rdmaHcaMax(), selectors,
                c.cdi() ? Optional.of(Path.of(c.cdiSpecDir())) : Optional.empty());
    }

    /** The pool being served; empty when its configuration was refused. */
    Optional<SharedPool> pool() {
        return Optional.ofNullable(serving).map(s -> (SharedPool) s.pool());
    }

    /** The served pool; empty when its configuration was refused. */
    Optional<ServedPool> served() {
        return Optional.ofNullable(serving);
    }

    /**
     * Stops serving. A pool whose configuration was deleted or changed is retired (its CDI spec goes once no running
     * container holds a device of it, unless the changed pool takes it again as it starts); any other stop (bundle,
     * framework, layer) leaves everything for the next instance.
     */
    @Deactivate
    void stop(int reason) {
        registry.remove(name);
        if (serving != null) {
            serving.stop(reason);
        }
    }
}
