// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.metrics.internal.MetricsConfig;
import java.nio.file.Path;
import java.util.Map;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;

/**
 * Publishes the RDMA port counters as a {@link MultiCollector} service, picked up by the metrics endpoint like
 * any other bundle's collector. The discovery reference is static: when discovery is swapped or reconfigured
 * this component goes with it (its series disappear) and comes back on the new service.
 */
@Component(service = MultiCollector.class, configurationPid = MetricsConfig.PID,
           configurationPolicy = ConfigurationPolicy.OPTIONAL)
public final class InfinibandCollectorComponent implements MultiCollector {

    private final InfinibandPortCollector collector;

    /**
     * @param discovery the discovery service with its properties: {@code sysfsRoot} is there when discovery is
     *                  configured to read another tree (a recorded host), else it reads {@code /sys}
     */
    @Activate
    public InfinibandCollectorComponent(MetricsConfig config,
            @Reference(service = RdmaDiscovery.class) Map.Entry<Map<String, Object>, RdmaDiscovery> discovery) {
        RdmaDiscovery service = discovery.getValue();
        Object root = discovery.getKey().get("sysfsRoot");
        this.collector = new InfinibandPortCollector(service::snapshot,
                Path.of(root instanceof String s && !s.isBlank() ? s : "/sys"), config.deviceInclude(),
                config.deviceExclude(), config.hwCounters());
    }

    @Override
    public MetricSnapshots collect() {
        return collector.collect();
    }
}
