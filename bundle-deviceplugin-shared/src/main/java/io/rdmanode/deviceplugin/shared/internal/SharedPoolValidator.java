// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.agent.ConfigValidator;
import io.rdmanode.deviceplugin.PoolConfigurations;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.osgi.annotation.bundle.Header;

/**
 * The shared pools' configuration check ({@code deviceplugin.shared.pools}): exactly what
 * {@link SharedPoolDevicePlugin} refuses on activation ({@link SharedPoolDevicePlugin#settings}: selectors,
 * resource name and prefix, rdmaHcaMax, device-ID length), and two pools with one extended resource name.
 * Overlaps with other pools are the ownership table's (the device-plugin layer's validator).
 */
@Header(name = ConfigValidator.HEADER, value = "${@class}")
public final class SharedPoolValidator implements ConfigValidator {

    public SharedPoolValidator() {
    }

    @Override
    public List<Refusal> validate(Proposal proposal) {
        List<Refusal> out = new ArrayList<>();
        Map<String, String> resources = new LinkedHashMap<>();
        PoolConfigurations.of(proposal.configurations(), SharedPoolDevicePlugin.PID).forEach((key, properties) -> {
            try {
                PoolSettings s = SharedPoolDevicePlugin.settings(
                        PoolConfigurations.typed(SharedPoolDevicePlugin.Config.class, properties));
                String other = resources.putIfAbsent(s.extendedResourceName(), s.name());
                if (other != null) {
                    out.add(new Refusal(key, "resourceName", "pool " + s.name() + ": resource "
                            + s.extendedResourceName() + " is already pool " + other + "'s; one pool per resource"));
                }
            } catch (IllegalArgumentException e) {
                out.add(new Refusal(key, property(e.getMessage()), e.getMessage()));
            }
        });
        return out;
    }

    /** The property a refusal of {@link SharedPoolDevicePlugin#settings} is about. */
    static String property(String message) {
        if (message.contains("no selectors")) {
            return "selectors";
        }
        for (String p : List.of("resourcePrefix", "resourceName", "rdmaHcaMax", "vendors", "deviceIDs", "devices",
                "drivers", "ifNames", "linkTypes")) {
            if (message.contains(p) || message.contains("'" + p)) {
                return p.equals("resourcePrefix") || p.equals("resourceName") || p.equals("rdmaHcaMax") ? p
                        : "selectors." + (p.equals("devices") ? "deviceIDs" : p);
            }
        }
        if (message.contains("': name '")) {
            return "resourceName";
        }
        if (message.contains("domain")) {
            return "resourcePrefix";
        }
        return message.contains("no selectors") ? "selectors" : "name";
    }
}
