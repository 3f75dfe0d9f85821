// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import java.util.Optional;

/**
 * Whether a candidate can be handed to a container now, and why not.
 *
 * @param problem empty exactly when usable, e.g. {@code no port ACTIVE ([port 1 DOWN])}
 * @since 1.0
 */
public record DeviceHealth(Optional<String> problem) {

    public static final DeviceHealth USABLE = new DeviceHealth(Optional.empty());

    public static DeviceHealth unusable(String why) {
        return new DeviceHealth(Optional.of(why));
    }

    public boolean usable() {
        return problem.isEmpty();
    }
}
