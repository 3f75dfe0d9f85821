// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.agent.ConfigValidator;
import io.rdmanode.deviceplugin.DeviceOwnership;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.Ownership;
import io.rdmanode.deviceplugin.PoolConfigurations;
import io.rdmanode.discovery.RdmaDiscovery;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.osgi.annotation.bundle.Header;

/**
 * The device-plugin layer's configuration check: its settings ({@code deviceplugin.common}), and the node's
 * ownership rule over every pool of every device-plugin bundle ({@link Ownership}): an exclusive pool and any
 * other pool that would hold the same device are refused, naming both. The ownership part needs the host: it
 * runs when the proposal offers {@link RdmaDiscovery} and {@link DeviceOwnership} (live reload) and is skipped
 * otherwise (offline {@code check-config}). {@link LayerComponent} calls {@link #settingsProblems} on activation.
 */
@Header(name = ConfigValidator.HEADER, value = "${@class}")
public final class DevicePluginValidator implements ConfigValidator {

    public DevicePluginValidator() {
    }

    @Override
    public List<Refusal> validate(Proposal proposal) {
        List<Refusal> out = new ArrayList<>();
        Map<String, Object> layer = proposal.configurations().get(DevicePluginLayer.PID);
        if (layer != null) {
            settingsProblems(PoolConfigurations.typed(LayerComponent.Config.class, layer)).forEach((property, msg) ->
                    out.add(new Refusal(DevicePluginLayer.PID, property, msg)));
        }
        var discovery = proposal.service(RdmaDiscovery.class);
        var ownership = proposal.service(DeviceOwnership.class);
        if (discovery.isPresent() && ownership.isPresent()) {
            for (Ownership.Conflict c : ownership.get().conflicts(proposal.configurations(),
                    discovery.get().snapshot())) {
                out.add(new Refusal(c.second().configuration(), "name", c.message()));
            }
        }
        return out;
    }

    /** Property to what is wrong with it; empty when the layer accepts {@code c}. */
    static Map<String, String> settingsProblems(LayerComponent.Config c) {
        Map<String, String> out = new java.util.LinkedHashMap<>();
        absolute(c.hostDevRoot()).ifPresent(p -> out.put("hostDevRoot", "hostDevRoot = \"" + c.hostDevRoot()
                + "\": " + p));
        for (String dir : c.cdiSpecDirs()) {
            absolute(dir).ifPresent(p -> out.putIfAbsent("cdiSpecDirs", "cdiSpecDirs entry \"" + dir + "\": " + p));
        }
        return out;
    }

    private static java.util.Optional<String> absolute(String path) {
        try {
            if (path.isEmpty() || !Path.of(path).isAbsolute()) {
                return java.util.Optional.of("must be an absolute path, e.g. /dev or /var/run/cdi");
            }
            return java.util.Optional.empty();
        } catch (InvalidPathException e) {
            return java.util.Optional.of("not a path (" + e.getReason() + "); must be an absolute path");
        }
    }
}
