// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import java.util.HashMap;
import java.util.Map;
import org.osgi.util.converter.Converters;

/** Typed pool configurations as SCR builds them from ConfigAdmin properties. */
final class Pools {

    private Pools() {
    }

    /** {@code config("hca_a", "rdmaHcaMax", 10, "selectors.vendors", new String[] {"15b3"})}. */
    static SharedPoolDevicePlugin.Config config(String name, Object... keyValues) {
        Map<String, Object> m = new HashMap<>();
        m.put("name", name);
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put((String) keyValues[i], keyValues[i + 1]);
        }
        return Converters.standardConverter().convert(m).to(SharedPoolDevicePlugin.Config.class);
    }

    static PoolSettings settings(String name, Object... keyValues) {
        return SharedPoolDevicePlugin.settings(config(name, keyValues));
    }
}
