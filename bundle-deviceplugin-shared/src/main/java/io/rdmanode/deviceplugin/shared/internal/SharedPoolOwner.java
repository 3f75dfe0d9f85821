// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.deviceplugin.DeviceOwner;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.Granularity;
import io.rdmanode.deviceplugin.Ownership;
import io.rdmanode.deviceplugin.PoolConfigurations;
import io.rdmanode.discovery.HostSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The shared pools as owners in the node's ownership table: a shared pool holds the HCAs its selectors match
 * ({@link SharedPool#compute}'s selection), not exclusively.
 */
@Component(service = DeviceOwner.class)
public final class SharedPoolOwner implements DeviceOwner {

    private final DevicePluginLayer layer;

    @Activate
    public SharedPoolOwner(@Reference DevicePluginLayer layer) {
        this.layer = layer;
    }

    @Override
    public String factoryPid() {
        return SharedPoolDevicePlugin.PID;
    }

    @Override
    public List<Ownership.Claim> claims(Map<String, Map<String, Object>> configurations, HostSnapshot host) {
        List<Ownership.Claim> out = new ArrayList<>();
        var candidates = layer.candidates(host, Granularity.HCA);
        configurations.forEach((key, properties) -> {
            PoolSettings settings;
            try {
                settings = SharedPoolDevicePlugin.settings(
                        PoolConfigurations.typed(SharedPoolDevicePlugin.Config.class, properties));
            } catch (IllegalArgumentException e) {
                return;                                      // the bundle's validator refuses it
            }
            out.add(new Ownership.Claim(key, settings.name(), false, settings.selectors().select(candidates)
                    .matched().stream().map(Ownership::deviceId).collect(Collectors.toSet())));
        });
        return out;
    }
}
