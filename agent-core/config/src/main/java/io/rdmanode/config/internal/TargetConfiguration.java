// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import java.util.Map;

/**
 * One ConfigAdmin configuration the file asks for.
 *
 * @param pid        the PID, or for a factory configuration its factory PID
 * @param name       the factory configuration's name ({@code pid~name}), or null for a singleton
 * @param path       the HOCON path it came from ({@code deviceplugin.shared.pools[hca_a]})
 * @param properties typed values, keys in the component's property names
 */
record TargetConfiguration(String pid, String name, String path, Map<String, Object> properties) {

    boolean isFactory() {
        return name != null;
    }

    /** The key ConfigAdmin shows for it: {@code pid} or {@code factoryPid~name}. */
    String displayPid() {
        return isFactory() ? pid + "~" + name : pid;
    }
}
