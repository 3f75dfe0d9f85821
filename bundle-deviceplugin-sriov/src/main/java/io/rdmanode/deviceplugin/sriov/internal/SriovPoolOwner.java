// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.deviceplugin.DeviceOwner;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.Ownership;
import io.rdmanode.deviceplugin.PoolConfigurations;
import io.rdmanode.discovery.HostSnapshot;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The SR-IOV pools as exclusive owners in the node's ownership table: which VFs each proposed pool would take,
 * by the bundle's own first-match-wins assignment ({@link PoolAssignment}) over the pools in configuration
 * order, with the VFs the RDMA ledger remembers inside pods.
 */
@Component(service = DeviceOwner.class)
public final class SriovPoolOwner implements DeviceOwner {

    private final DevicePluginLayer layer;
    private final SriovPoolRegistry registry;

    @Activate
    public SriovPoolOwner(@Reference DevicePluginLayer layer, @Reference SriovPoolRegistry registry) {
        this.layer = layer;
        this.registry = registry;
    }

    @Override
    public String factoryPid() {
        return SriovPoolDevicePlugin.PID;
    }

    @Override
    public List<Ownership.Claim> claims(Map<String, Map<String, Object>> configurations, HostSnapshot host) {
        return claims(configurations, host, layer, registry.pools().remembered());
    }

    static List<Ownership.Claim> claims(Map<String, Map<String, Object>> configurations, HostSnapshot host,
                                        DevicePluginLayer layer, Map<String, VfRdma> remembered) {
        record Pool(String key, SriovPoolSettings settings, VfMatcher matcher) { }
        List<Pool> pools = new ArrayList<>();
        configurations.forEach((key, properties) -> {
            try {
                SriovPoolDevicePlugin.Config c = PoolConfigurations.typed(SriovPoolDevicePlugin.Config.class,
                        properties);
                pools.add(new Pool(key, SriovPoolDevicePlugin.settings(c, properties.get(SriovPoolDevicePlugin.INDEX)),
                        SriovPoolDevicePlugin.matcher(c)));
            } catch (IllegalArgumentException e) {
                // the bundle's validator refuses it
            }
        });
        pools.sort(Comparator.comparingInt((Pool p) -> p.settings().order()).thenComparing(p -> p.settings().name()));
        PoolAssignment a = PoolAssignment.of(pools.stream().map(p -> new PoolAssignment.Rule(p.settings().name(),
                p.settings().extendedResourceName(), p.matcher())).toList(), layer, host, remembered);
        return pools.stream().map(p -> new Ownership.Claim(p.key(), p.settings().name(), true,
                a.pool(p.settings().name()).stream().map(v -> v.vf().id()).collect(Collectors.toSet()))).toList();
    }
}
