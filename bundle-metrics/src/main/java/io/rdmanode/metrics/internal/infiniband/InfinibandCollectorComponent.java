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
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * Publishes the RDMA port counters as a {@link MultiCollector} service, picked up by the metrics endpoint like
 * any other bundle's collector. The discovery reference is static: when discovery is swapped or reconfigured
 * this component goes with it (its series disappear) and comes back on the new service. The series of devices
 * the CNI plugin moved into pods come from {@link PodPortSource} and join the same families.
 */
@Component(service = MultiCollector.class, configurationPid = MetricsConfig.PID,
           configurationPolicy = ConfigurationPolicy.OPTIONAL)
public final class InfinibandCollectorComponent implements MultiCollector {

    private final InfinibandPortCollector collector;

    /** The series of RDMA devices in pods, while the CNI plugin runs. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
               policyOption = ReferencePolicyOption.GREEDY)
    private volatile PodPortSource pods;

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
        PodPortSource p = pods;
        return p == null ? collector.collect() : collector.collect(p);
    }
}
