// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.kubelet.DevicePluginHost;
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
 * device-plugin host ({@link ServedPool}) and shows it in the bundle's status. Any configuration change means a new
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

    private final String name;
    private final SharedPoolRegistry registry;
    private final ServedPool serving;                  // null when the pool's configuration was refused
    private final SharedPoolRegistry.PoolView view;

    @Activate
    public SharedPoolDevicePlugin(Config config, @Reference RdmaDiscovery discovery,
                                  @Reference DevicePluginHost host, @Reference SharedPoolRegistry registry) {
        this.name = config.name();
        this.registry = registry;
        ServedPool started = null;
        SharedPoolRegistry.PoolView shown;
        try {
            started = new ServedPool(settings(config), discovery, host);
            shown = started::status;
        } catch (IllegalArgumentException e) {
            // Input MetaType cannot check (resource name syntax, ID length, a resource name taken by another
            // pool): refused with the reason in the log, /status and /readyz rather than a failed activation
            // whose cause SCR wraps.
            String problem = e.getMessage();
            LOG.error("pool refused pool={}: {}", name, problem);
            shown = () -> Map.of("name", name, "refused", problem);
        }
        this.serving = started;
        this.view = shown;
        registry.add(name, view);
    }

    static PoolSettings settings(Config c) {
        Selectors selectors = new Selectors(List.of(c.selectors_vendors()), List.of(c.selectors_deviceIDs()),
                List.of(c.selectors_drivers()), List.of(c.selectors_ifNames()), List.of(c.selectors_linkTypes()));
        String resourceName = c.resourceName().isEmpty() ? c.name() : c.resourceName();
        return new PoolSettings(c.name(), c.resourcePrefix(), resourceName, c.rdmaHcaMax(), selectors,
                c.cdi() ? Optional.of(Path.of(c.cdiSpecDir())) : Optional.empty());
    }

    /** The pool being served; empty when its configuration was refused. */
    Optional<SharedPool> pool() {
        return Optional.ofNullable(serving).map(ServedPool::pool);
    }

    @Deactivate
    void stop() {
        registry.remove(name, view);
        if (serving != null) {
            serving.close();
        }
    }
}
