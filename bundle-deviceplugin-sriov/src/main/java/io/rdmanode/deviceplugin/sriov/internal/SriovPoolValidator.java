// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.agent.ConfigValidator;
import io.rdmanode.deviceplugin.PoolConfigurations;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.osgi.annotation.bundle.Header;

/**
 * The SR-IOV pools' configuration check ({@code deviceplugin.sriov.pools}): exactly what
 * {@link SriovPoolDevicePlugin} refuses on activation ({@link SriovPoolDevicePlugin#settings} and
 * {@link SriovPoolDevicePlugin#matcher}: resource name and prefix, policy, every selector value, at least one
 * selector), and two pools with one extended resource name. Overlaps with other pools are the ownership
 * table's (the device-plugin layer's validator).
 */
@Header(name = ConfigValidator.HEADER, value = "${@class}")
public final class SriovPoolValidator implements ConfigValidator {

    public SriovPoolValidator() {
    }

    @Override
    public List<Refusal> validate(Proposal proposal) {
        List<Refusal> out = new ArrayList<>();
        Map<String, String> resources = new LinkedHashMap<>();
        PoolConfigurations.of(proposal.configurations(), SriovPoolDevicePlugin.PID).forEach((key, properties) -> {
            try {
                SriovPoolDevicePlugin.Config c = PoolConfigurations.typed(SriovPoolDevicePlugin.Config.class,
                        properties);
                SriovPoolSettings s = SriovPoolDevicePlugin.settings(c, properties.get(SriovPoolDevicePlugin.INDEX));
                SriovPoolDevicePlugin.matcher(c);
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

    /** The property a refusal of {@link SriovPoolDevicePlugin#settings} or {@code matcher} is about. */
    static String property(String message) {
        if (message.contains("deviceInfoDir")) {
            return "deviceInfoDir";
        }
        if (message.contains("no selectors")) {
            return "selectors";
        }
        for (String p : List.of("vendors", "devices", "drivers", "pciAddresses", "pfNames", "rootDevices",
                "linkTypes")) {
            if (message.contains(p)) {
                return "selectors." + p;
            }
        }
        if (message.contains("policy")) {
            return "policy";
        }
        if (message.contains("no selectors")) {
            return "selectors";
        }
        if (message.contains("domain")) {
            return "resourcePrefix";
        }
        return message.contains("resource") ? "resourceName" : "name";
    }
}
