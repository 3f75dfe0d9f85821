// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.agent.SettingException;
import io.rdmanode.kubelet.DevicePluginHost;
import io.rdmanode.deviceplugin.Exclusion;
import io.rdmanode.deviceplugin.Selectors;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Locale;
import java.util.Map;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One SR-IOV pool ({@code deviceplugin.sriov.pools = [ {name = ..., ...} ]}), handed to the bundle's
 * {@link SriovPoolRegistry}. Any change of its configuration is a new socket and registration, so there is no
 * {@code @Modified}: SCR deactivates and activates again, which is what live reload of a pool is. The list
 * position (private property {@code .index} from the config bridge) orders the pools: the first that
 * matches a VF takes it.
 */
@Component(service = {}, immediate = true, configurationPid = SriovPoolDevicePlugin.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = SriovPoolDevicePlugin.Config.class, factory = true)
public final class SriovPoolDevicePlugin {

    static final String PID = "io.rdmanode.deviceplugin.sriov.pools";
    static final String INDEX = ".index";
    private static final Logger LOG = LoggerFactory.getLogger(SriovPoolDevicePlugin.class);

    @ObjectClassDefinition(name = "SR-IOV RDMA VF pool",
            description = "One VF per device ID, exclusive to a pod (sriov-network-device-plugin)")
    public @interface Config {
        @AttributeDefinition(description = "pool name; also the resource name unless resourceName is set")
        String name();

        @AttributeDefinition(description = "extended resource name without prefix; empty means the pool name")
        String resourceName() default "";

        @AttributeDefinition(description = "extended resource domain, as in rdma/sriov_a")
        String resourcePrefix() default "rdma";

        @AttributeDefinition(description = "how GetPreferredAllocation picks VFs across PFs on one NUMA node",
                options = {@Option(label = "spread", value = "spread"), @Option(label = "pack", value = "pack")})
        String policy() default "spread";

        @AttributeDefinition(description = "advertise no NUMA topology for this pool's VFs")
        boolean excludeTopology() default false;

        @AttributeDefinition(description = "directory of NPWG device-info files written at Allocate")
        String deviceInfoDir() default "/var/run/k8s.cni.cncf.io/devinfo/dp";

        @AttributeDefinition(description = "write a CDI spec (one device per VF) and answer Allocate with CDI"
                + " device names instead of device nodes")
        boolean cdi() default false;

        @AttributeDefinition(description = "directory of dynamic CDI specs")
        String cdiSpecDir() default "/var/run/cdi";

        @AttributeDefinition(description = "PCI vendor ids of the VFs, e.g. 15b3")
        String[] selectors_vendors() default {};

        @AttributeDefinition(description = "PCI device ids of the VFs, e.g. 1018")
        String[] selectors_devices() default {};

        @AttributeDefinition(description = "kernel drivers of the VFs, e.g. mlx5_core, vfio-pci")
        String[] selectors_drivers() default {};

        @AttributeDefinition(description = "PCI addresses of the VFs, e.g. 0000:3b:00.2")
        String[] selectors_pciAddresses() default {};

        @AttributeDefinition(description = "PF netdev names, optionally with VF index ranges: ens1f0#0-3,6")
        String[] selectors_pfNames() default {};

        @AttributeDefinition(description = "PF PCI addresses, optionally with VF index ranges: 0000:3b:00.0#0-3")
        String[] selectors_rootDevices() default {};

        @AttributeDefinition(description = "link types: ether, infiniband")
        String[] selectors_linkTypes() default {};

        @AttributeDefinition(description = "only VFs with an RDMA device (also when it is inside a pod netns)")
        boolean selectors_isRdma() default false;
    }

    private final String name;
    private final SriovPoolRegistry registry;
    private final SriovPools.Handle handle;              // null when the configuration was refused

    @Activate
    public SriovPoolDevicePlugin(Config config, Map<String, Object> properties, @Reference DevicePluginHost host,
                                 @Reference SriovPoolRegistry registry) {
        this.name = config.name();
        this.registry = registry;
        SriovPools.Handle started = null;
        try {
            SriovPoolSettings settings = settings(config, properties.get(INDEX));
            started = registry.pools().add(settings, matcher(config), host);
            registry.notRefused(name);
        } catch (IllegalArgumentException e) {
            // Input MetaType cannot check (resource name syntax, a malformed VF range, a resource name taken
            // by another pool): refused with the reason in the log, /status and /readyz.
            LOG.error("pool refused pool={}: {}", name, e.getMessage());
            registry.refused(name, e.getMessage());
        }
        this.handle = started;
    }

    /** @throws SettingException naming the property of the first value the pool refuses */
    static SriovPoolSettings settings(Config c, Object index) {
        int order = index instanceof Number n ? n.intValue() : Integer.MAX_VALUE;
        String resourceName = c.resourceName().isEmpty() ? c.name() : c.resourceName();
        PreferredAllocator.Policy policy;
        try {
            policy = PreferredAllocator.Policy.valueOf(c.policy().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new SettingException("policy", "pool " + c.name() + ": policy '" + c.policy()
                    + "' is not one of spread, pack");
        }
        return new SriovPoolSettings(c.name(), order, c.resourcePrefix(), resourceName, policy, c.excludeTopology(),
                Path.of(c.deviceInfoDir()), c.cdi() ? Optional.of(Path.of(c.cdiSpecDir())) : Optional.empty());
    }

    /**
     * The pool's selectors in the layer's engine (the SR-IOV plugin's vocabulary; {@code isRdma = false}
     * does not restrict, as in the peer).
     *
     * @throws SettingException for a malformed value ({@code selectors.<kind>}) or no selector at all
     */
    static VfMatcher matcher(Config c) {
        Selectors selectors;
        try {
            selectors = new Selectors(List.of(c.selectors_vendors()), List.of(c.selectors_devices()),
                    List.of(c.selectors_drivers()), List.of(c.selectors_pciAddresses()), List.of(),
                    Selectors.pfSelectors("pfNames", List.of(c.selectors_pfNames())),
                    Selectors.pfSelectors("rootDevices", List.of(c.selectors_rootDevices())),
                    List.of(c.selectors_linkTypes()), c.selectors_isRdma() ? Optional.of(true) : Optional.empty());
        } catch (SettingException e) {
            throw e.within("selectors");
        }
        if (selectors.isEmpty()) {
            throw new SettingException("selectors", "pool " + c.name() + " has no selectors: set at least one of "
                    + "selectors.vendors, devices, drivers, pciAddresses, pfNames, rootDevices, linkTypes, isRdma");
        }
        return (vf, host) -> selectors.exclusion(vf.candidate()).map(Exclusion::reason);
    }

    SriovPools.Handle handle() {
        return handle;
    }

    /**
     * Stops serving; a pool whose configuration was deleted or modified is retired (its CDI spec and device-info
     * files go once no running container holds its VFs), any other stop leaves them to the next instance.
     */
    @Deactivate
    void stop(int reason) {
        registry.notRefused(name);
        if (handle != null) {
            registry.pools().stop(handle, reason);
        }
    }
}
