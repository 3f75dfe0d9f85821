// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.agent.RdmaDeviceChooser;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.Granularity;
import io.rdmanode.discovery.RdmaDiscovery;
import java.util.List;
import java.util.Map;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The layer's {@link RdmaDeviceChooser}: the whole-HCA candidates of the host as discovery sees it now, taken by
 * the pools' selectors ({@link DeviceChoice}). Static references: when the layer or discovery goes, so does this
 * service, and its consumers (the Freeflow router) keep what they chose; they hold it dynamically.
 */
@Component(service = RdmaDeviceChooser.class)
public final class LayerDeviceChooser implements RdmaDeviceChooser {

    private final DevicePluginLayer layer;
    private final RdmaDiscovery discovery;

    @Activate
    public LayerDeviceChooser(@Reference DevicePluginLayer layer, @Reference RdmaDiscovery discovery) {
        this.layer = layer;
        this.discovery = discovery;
    }

    @Override
    public String choose(Map<String, List<String>> selectors) {
        return DeviceChoice.choose(DeviceChoice.parse(selectors),
                layer.candidates(discovery.snapshot(), Granularity.HCA));
    }
}
