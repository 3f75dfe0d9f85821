// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code /status} shows of one served pool.
 *
 * @param matched            matched device keys
 * @param excluded           device key to the reason naming the selector and the device's value
 * @param unusable           matched device key to why it is left out of Allocate
 * @param allocations        Allocate container requests answered since the pool started
 * @param allocationFailures Allocate requests refused
 * @param lastAllocation     device IDs of the latest answered request; empty before the first
 * @param details            the plugin's own fields ({@link PoolView#details()})
 * @since 1.0
 */
public record PoolStatus(String name, String resource, boolean healthy, String reason, boolean registered,
                         List<String> matched, Map<String, String> excluded, Map<String, String> unusable,
                         long allocations, long allocationFailures, List<String> lastAllocation,
                         Map<String, Object> details) {

    public PoolStatus {
        matched = List.copyOf(matched);
        excluded = Collections.unmodifiableMap(new LinkedHashMap<>(excluded));
        unusable = Collections.unmodifiableMap(new LinkedHashMap<>(unusable));
        lastAllocation = List.copyOf(lastAllocation);
        details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
    }

    /** The JSON-ready view: common fields, then the plugin's details. */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", name);
        m.put("resource", resource);
        m.put("healthy", healthy);
        if (!healthy) {
            m.put("reason", reason);
        }
        m.put("registered", registered);
        m.put("matched", matched);
        if (!unusable.isEmpty()) {
            m.put("unusable", unusable);
        }
        m.put("excluded", excluded);
        Map<String, Object> alloc = new LinkedHashMap<>();
        alloc.put("count", allocations);
        alloc.put("failures", allocationFailures);
        alloc.put("last", lastAllocation);
        m.put("allocations", alloc);
        details.forEach(m::putIfAbsent);
        return m;
    }
}
