// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.agent.ConfigValidator;
import io.rdmanode.deviceplugin.PoolConfigurations;
import java.util.ArrayList;
import java.util.List;
import org.osgi.annotation.bundle.Header;

/**
 * The shared pools' configuration check ({@code deviceplugin.shared.pools}): exactly what
 * {@link SharedPoolDevicePlugin} refuses on activation ({@link SharedPoolDevicePlugin#settings}: selectors,
 * resource name and prefix, rdmaHcaMax, device-ID length), at the property the refusal names. One pool per
 * extended resource name and overlaps with other pools are the device-plugin layer's validator's, across bundles.
 */
@Header(name = ConfigValidator.HEADER, value = "${@class}")
public final class SharedPoolValidator implements ConfigValidator {

    public SharedPoolValidator() {
    }

    @Override
    public List<Refusal> validate(Proposal proposal) {
        List<Refusal> out = new ArrayList<>();
        PoolConfigurations.of(proposal.configurations(), SharedPoolDevicePlugin.PID).forEach((key, properties) -> {
            try {
                SharedPoolDevicePlugin.settings(PoolConfigurations.typed(SharedPoolDevicePlugin.Config.class,
                        properties));
            } catch (IllegalArgumentException e) {
                out.add(Refusal.of(key, e));
            }
        });
        return out;
    }
}
