// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.rdmanode.cni.PodAttachments;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.metrics.internal.MetricsConfig;
import io.rdmanode.netlink.NetworkNamespaces;
import java.nio.file.Path;
import java.util.List;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;

/**
 * Reads the port series of the RDMA devices the CNI plugin placed in pods ({@link PodAttachments}), from
 * inside each pod's network namespace; satisfied only while the CNI plugin, the netlink bundle and discovery
 * are all there. A live sysfs only: with discovery reading a recorded host there is no pod to enter.
 */
@Component(service = PodPortSource.class, configurationPid = MetricsConfig.PID,
           configurationPolicy = ConfigurationPolicy.OPTIONAL)
public final class PodPortsComponent implements PodPortSource {

    private final PodPortSeries series;

    @Activate
    public PodPortsComponent(MetricsConfig config, @Reference PodAttachments pods,
                             @Reference NetworkNamespaces namespaces, @Reference RdmaDiscovery discovery) {
        this.series = new PodPortSeries(pods::attachments, namespaces, discovery, Path.of("/sys"),
                InfinibandPortCollector.deviceFilter(config.deviceInclude(), config.deviceExclude()),
                config.hwCounters());
    }

    @Override
    public List<MetricSnapshots> read() {
        return series.read();
    }
}
