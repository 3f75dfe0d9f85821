// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.agent.ConfigValidator;
import io.rdmanode.deviceplugin.PoolConfigurations;
import java.util.ArrayList;
import java.util.List;
import org.osgi.annotation.bundle.Header;

/**
 * The SR-IOV pools' configuration check ({@code deviceplugin.sriov.pools}): exactly what
 * {@link SriovPoolDevicePlugin} refuses on activation ({@link SriovPoolDevicePlugin#settings} and
 * {@link SriovPoolDevicePlugin#matcher}: resource name and prefix, policy, device-info directory, every selector
 * value, at least one selector), at the property the refusal names. One pool per extended resource name and
 * overlaps with other pools are the device-plugin layer's validator's, across bundles.
 */
@Header(name = ConfigValidator.HEADER, value = "${@class}")
public final class SriovPoolValidator implements ConfigValidator {

    public SriovPoolValidator() {
    }

    @Override
    public List<Refusal> validate(Proposal proposal) {
        List<Refusal> out = new ArrayList<>();
        PoolConfigurations.of(proposal.configurations(), SriovPoolDevicePlugin.PID).forEach((key, properties) -> {
            try {
                SriovPoolDevicePlugin.Config c = PoolConfigurations.typed(SriovPoolDevicePlugin.Config.class,
                        properties);
                SriovPoolDevicePlugin.settings(c, properties.get(SriovPoolDevicePlugin.INDEX));
                SriovPoolDevicePlugin.matcher(c);
            } catch (IllegalArgumentException e) {
                out.add(Refusal.of(key, e));
            }
        });
        return out;
    }
}
