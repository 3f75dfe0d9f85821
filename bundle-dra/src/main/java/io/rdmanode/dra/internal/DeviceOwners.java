// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The node's other owner of the same devices, the device-plugin pools: a device has one owner. Prepare holds a
 * claim's devices there (refused when a pod holds one through a pool; from then on no pool offers them) and
 * Unprepare releases them.
 */
interface DeviceOwners {

    /** Holds {@code pciAddresses}, all or none: empty when held, else each conflicting one with its holder. */
    Map<String, String> hold(Collection<String> pciAddresses);

    void release(Collection<String> pciAddresses);

    /** Checks against what pods hold (PCI address to resource) and holds nothing itself (tests). */
    static DeviceOwners checking(Function<String, Optional<String>> heldBy) {
        return new DeviceOwners() {
            @Override
            public Map<String, String> hold(Collection<String> pciAddresses) {
                Map<String, String> conflicts = new LinkedHashMap<>();
                pciAddresses.forEach(p -> heldBy.apply(p).ifPresent(r -> conflicts.put(p, r)));
                return conflicts;
            }

            @Override
            public void release(Collection<String> pciAddresses) {
            }
        };
    }
}
