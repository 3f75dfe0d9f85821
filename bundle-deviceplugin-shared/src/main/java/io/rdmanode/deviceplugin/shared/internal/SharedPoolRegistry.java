// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.ServedPool;
import io.rdmanode.deviceplugin.StatusRegistry;
import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import io.rdmanode.health.StatusSection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The bundle's {@code /status} section {@code deviceplugin.shared}: every active pool, what it matched and,
 * for a pool that matches nothing, which selector excluded which device (the layer's {@link StatusRegistry}).
 * Pools add themselves while active. Its READY check fails while a pool's configuration is refused; an
 * unhealthy pool (no usable HCA, exclusive netns mode) is a state of the host, reported to kubelet and in the
 * status, not a failure of the agent.
 */
@Component(service = {SharedPoolRegistry.class, StatusSection.class, HealthCheck.class})
public final class SharedPoolRegistry implements StatusSection, HealthCheck {

    private final StatusRegistry pools;

    @Activate
    public SharedPoolRegistry(@Reference DevicePluginLayer layer) {
        this.pools = layer.statusRegistry();
    }

    public void add(String name, ServedPool pool) {
        pools.add(name, pool);
    }

    public void refused(String name, String problem) {
        pools.refused(name, problem);
    }

    public void remove(String name) {
        pools.remove(name);
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
        Map<String, String> refused = pools.refused();
        if (!refused.isEmpty()) {
            return HealthStatus.failing("pool(s) refused: " + refused);
        }
        // A pool whose CDI spec cannot be written answers every Allocate UNAVAILABLE: not ready, and /readyz says why.
        List<Map<String, Object>> status = pools.status();
        List<String> cdi = status.stream().filter(p -> p.get("cdiProblem") != null)
                .map(p -> "pool " + p.get("name") + ": " + p.get("cdiProblem")).toList();
        return cdi.isEmpty() ? HealthStatus.ok(status.size() + " pool(s) serving")
                : HealthStatus.failing(String.join("; ", cdi));
    }

    @Override
    public Object status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pools", pools.status());
        return m;
    }
}
