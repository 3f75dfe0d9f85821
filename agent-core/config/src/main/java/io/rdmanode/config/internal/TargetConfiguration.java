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
 * @param origins    where each property was written (key {@code ""}: the object itself), so a validator's refusal
 *                   of a property is reported at its line
 */
record TargetConfiguration(String pid, String name, String path, Map<String, Object> properties,
                           Map<String, Origin> origins) {

    /** A place in the file: the file (an included file names itself) and its 1-based line, or -1. */
    record Origin(String file, int line) {
    }

    /** Where {@code property} was written, else where the object starts. */
    Origin origin(String property) {
        Origin origin = origins.get(property);
        return origin != null ? origin : origins.getOrDefault("", new Origin(null, -1));
    }

    boolean isFactory() {
        return name != null;
    }

    /** The key ConfigAdmin shows for it: {@code pid} or {@code factoryPid~name}. */
    String displayPid() {
        return isFactory() ? pid + "~" + name : pid;
    }
}
