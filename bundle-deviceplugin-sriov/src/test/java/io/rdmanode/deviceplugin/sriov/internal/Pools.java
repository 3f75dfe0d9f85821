// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import java.util.HashMap;
import java.util.Map;
import org.osgi.util.converter.Converters;

/** Typed pool configurations as SCR builds them from ConfigAdmin properties. */
final class Pools {

    private Pools() {
    }

    /** {@code config("sriov_a", "selectors.pfNames", new String[] {"ens1f0#0-3"})}. */
    static SriovPoolDevicePlugin.Config config(String name, Object... keyValues) {
        Map<String, Object> m = new HashMap<>();
        m.put("name", name);
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put((String) keyValues[i], keyValues[i + 1]);
        }
        return Converters.standardConverter().convert(m).to(SriovPoolDevicePlugin.Config.class);
    }
}
