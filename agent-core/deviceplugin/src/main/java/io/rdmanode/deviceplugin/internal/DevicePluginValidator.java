// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.agent.ConfigValidator;
import io.rdmanode.agent.RdmaDeviceChooser;
import io.rdmanode.deviceplugin.DeviceOwnership;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.Ownership;
import io.rdmanode.deviceplugin.PoolConfigurations;
import io.rdmanode.discovery.RdmaDiscovery;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.osgi.annotation.bundle.Header;

/**
 * The device-plugin layer's configuration check: its settings ({@code deviceplugin.common}), one pool per
 * extended resource name across every device-plugin bundle (a shared and an SR-IOV pool of one name clash too:
 * kubelet keeps one plugin per name), and the node's ownership rule over every pool of every device-plugin
 * bundle ({@link Ownership}): an exclusive pool and any other pool that would hold the same device are refused,
 * naming both. The ownership part needs the host: it
 * runs when the proposal offers {@link RdmaDiscovery} and {@link DeviceOwnership} (live reload) and is skipped
 * otherwise (offline {@code check-config}). {@link LayerComponent} calls {@link #settingsProblems} on activation.
 * It also judges {@code deviceSelectors.<kind>} in any component's configuration ({@link RdmaDeviceChooser}): those
 * are the pools' selectors, asked of this layer by components that import none of its packages (the Freeflow
 * router), so the rules that parse them here refuse them.
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
        out.addAll(resourceClashes(proposal.configurations()));
        out.addAll(deviceSelectorProblems(proposal.configurations()));
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

    /** Every configuration's {@code deviceSelectors.<kind>} parsed as {@link RdmaDeviceChooser#choose} will. */
    static List<Refusal> deviceSelectorProblems(Map<String, Map<String, Object>> configurations) {
        List<Refusal> out = new ArrayList<>();
        configurations.forEach((key, properties) -> {
            // Kind by kind, so that each bad key is refused at its own line.
            DeviceChoice.of(properties).forEach((kind, entries) -> {
                try {
                    DeviceChoice.parse(Map.of(kind, entries));
                } catch (IllegalArgumentException e) {
                    out.add(Refusal.of(key, e));
                }
            });
        });
        return out;
    }

    /**
     * Pools of any device-plugin bundle that would register one extended resource name: kubelet keeps one plugin
     * per name, so the second registration would replace the first. Each such pool is refused at its
     * {@code resourceName}, the message naming every pool of the name (so the bridge shows each with its line).
     */
    static List<Refusal> resourceClashes(Map<String, Map<String, Object>> configurations) {
        Map<String, List<String>> byResource = new LinkedHashMap<>();
        configurations.forEach((key, properties) -> {
            if (PoolConfigurations.isPool(key)) {
                byResource.computeIfAbsent(PoolConfigurations.extendedResourceName(key, properties),
                        r -> new ArrayList<>()).add(key);
            }
        });
        List<Refusal> out = new ArrayList<>();
        byResource.forEach((resource, keys) -> {
            if (keys.size() > 1) {
                String message = "pools " + String.join(" and ", keys.stream().map(DevicePluginValidator::path)
                        .toList()) + (keys.size() == 2 ? " would both register " : " would all register ") + resource + ": kubelet keeps one device plugin per"
                        + " extended resource name (give each pool its own resourceName or resourcePrefix)";
                keys.forEach(key -> out.add(new Refusal(key, "resourceName", message)));
            }
        });
        return out;
    }

    /** {@code io.rdmanode.deviceplugin.sriov.pools~a} as the file writes it: {@code deviceplugin.sriov.pools[a]}. */
    private static String path(String key) {
        int tilde = key.indexOf('~');
        return key.substring("io.rdmanode.".length(), tilde) + "[" + key.substring(tilde + 1) + "]";
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
