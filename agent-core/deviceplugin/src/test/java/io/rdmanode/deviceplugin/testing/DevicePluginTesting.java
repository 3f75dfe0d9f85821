// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.testing;

import io.rdmanode.agent.ConfigValidator;
import io.rdmanode.deviceplugin.DeviceOwner;
import io.rdmanode.deviceplugin.DeviceOwnership;
import io.rdmanode.agent.RdmaDeviceChooser;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.deviceplugin.internal.DevicePluginValidator;
import io.rdmanode.deviceplugin.internal.Layer;
import io.rdmanode.deviceplugin.internal.LayerDeviceChooser;
import io.rdmanode.deviceplugin.internal.OwnershipTable;
import io.rdmanode.kubelet.PodDevices;
import java.nio.file.Path;
import java.util.List;

/** The layer's implementations outside OSGi, for the device-plugin bundles' tests (their internals stay free). */
public final class DevicePluginTesting {

    private DevicePluginTesting() {
    }

    /** The layer the OSGi service wraps. */
    public static DevicePluginLayer layer(LayerSettings settings) {
        return new Layer(settings);
    }

    /**
     * The agent's layer: its allocation ledger in {@code ledgerFile}, reconciled with {@code kubelet} (every
     * 300 ms, so tests see a holder go quickly; the agent asks every 10 s).
     */
    public static DevicePluginLayer layer(LayerSettings settings, Path ledgerFile, PodDevices kubelet) {
        return new Layer(settings, ledgerFile, kubelet, java.time.Duration.ofMillis(300));
    }

    /**
     * As above; a CDI spec found at start counts as not configured once no pool claimed it for {@code settle}
     * (the agent waits 30 s). The CDI spec index is kept beside {@code ledgerFile}.
     */
    public static DevicePluginLayer layer(LayerSettings settings, Path ledgerFile, PodDevices kubelet,
                                          java.time.Duration settle) {
        return new Layer(settings, ledgerFile, kubelet, java.time.Duration.ofMillis(300), settle);
    }

    /** {@code /status}'s CDI spec lines of a layer made here: removed (with why) and kept (file to why). */
    public static java.util.Map<String, Object> cdiStatus(DevicePluginLayer layer) {
        Layer l = (Layer) layer;
        return java.util.Map.of("removed", l.cdiSpecsRemoved(), "kept", l.cdiSpecsKept());
    }

    /** Stops a layer made here: its ledger's reconciliation and the ownership notifier (an agent that stops). */
    public static void close(DevicePluginLayer layer) {
        ((Layer) layer).close();
    }

    /** The layer bundle's {@link RdmaDeviceChooser} over {@code layer} and {@code discovery}, as SCR makes it. */
    public static RdmaDeviceChooser deviceChooser(DevicePluginLayer layer,
                                                  io.rdmanode.discovery.RdmaDiscovery discovery) {
        return new LayerDeviceChooser(layer, discovery);
    }

    /** The ownership table over fixed owners. */
    public static DeviceOwnership ownership(List<DeviceOwner> owners) {
        return new OwnershipTable(owners);
    }

    /** The layer bundle's configuration validator (settings and the ownership rule). */
    public static ConfigValidator validator() {
        return new DevicePluginValidator();
    }
}
