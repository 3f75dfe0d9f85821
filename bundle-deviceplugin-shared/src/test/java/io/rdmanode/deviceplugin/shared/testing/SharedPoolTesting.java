// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.testing;

import io.rdmanode.deviceplugin.DeviceOwner;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.shared.internal.SharedPoolOwner;

/** The shared pools' owner in the ownership table, for other bundles' ownership tests. */
public final class SharedPoolTesting {

    private SharedPoolTesting() {
    }

    /** The owner the bundle registers: claims computed with the shared pool's own selection. */
    public static DeviceOwner owner(DevicePluginLayer layer) {
        return new SharedPoolOwner(layer);
    }
}
