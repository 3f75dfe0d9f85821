// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.deviceplugin.ServedPool;
import io.rdmanode.deviceplugin.StatusRegistry;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Supplier;

/** {@link StatusRegistry}: pool name to what it shows, read per request. */
final class Registry implements StatusRegistry {

    private final Map<String, Supplier<Map<String, Object>>> pools = new ConcurrentSkipListMap<>();
    private final Map<String, String> refused = new ConcurrentSkipListMap<>();

    @Override
    public void add(String name, ServedPool pool) {
        refused.remove(name);
        pools.put(name, () -> pool.status().toMap());
    }

    @Override
    public void refused(String name, String problem) {
        refused.put(name, problem);
        pools.put(name, () -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", name);
            m.put("refused", problem);
            return m;
        });
    }

    @Override
    public void remove(String name) {
        pools.remove(name);
        refused.remove(name);
    }

    @Override
    public Map<String, String> refused() {
        return Map.copyOf(refused);
    }

    @Override
    public List<Map<String, Object>> status() {
        return pools.values().stream().map(Supplier::get).toList();
    }
}
