// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import io.rdmanode.health.StatusSection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import org.osgi.service.component.annotations.Component;

/**
 * The bundle's {@code /status} section {@code deviceplugin.shared}: every active pool, what it matched and,
 * for a pool that matches nothing, which selector excluded which device. Pools add themselves while active.
 * Its READY check fails while a pool's configuration is refused; an unhealthy pool (no usable HCA, exclusive
 * netns mode) is a state of the host, reported to kubelet and in the status, not a failure of the agent.
 */
@Component(service = {SharedPoolRegistry.class, StatusSection.class, HealthCheck.class})
public final class SharedPoolRegistry implements StatusSection, HealthCheck {

    /** What a pool shows; read per request. */
    public interface PoolView {
        Map<String, Object> status();
    }

    private final Map<String, PoolView> pools = new ConcurrentSkipListMap<>();

    public void add(String name, PoolView pool) {
        pools.put(name, pool);
    }

    public void remove(String name, PoolView pool) {
        pools.remove(name, pool);
    }

    @Override
    public String name() {
        return "deviceplugin.shared";
    }

    @Override
    public Kind kind() {
        return Kind.READY;
    }

    @Override
    public HealthStatus check() {
        Map<String, Object> refused = new LinkedHashMap<>();
        pools.forEach((name, view) -> {
            Object problem = view.status().get("refused");
            if (problem != null) {
                refused.put(name, problem);
            }
        });
        return refused.isEmpty() ? HealthStatus.ok(pools.size() + " pool(s) serving")
                : HealthStatus.failing("pool(s) refused: " + refused);
    }

    @Override
    public Object status() {
        Map<String, Object> m = new LinkedHashMap<>();
        List<Map<String, Object>> list = pools.values().stream().map(PoolView::status).toList();
        m.put("pools", list);
        return m;
    }
}
