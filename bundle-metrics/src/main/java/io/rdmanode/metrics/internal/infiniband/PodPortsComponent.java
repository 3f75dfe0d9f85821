// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.rdmanode.cni.PodAttachments;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.netlink.NetworkNamespaces;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;

/**
 * Reads the port series of the RDMA devices the CNI plugin placed in pods ({@link PodAttachments}), from
 * inside each pod's network namespace. It exists only while the configuration has a {@code cni} section (the
 * CNI plugin's own PID): without one there are no pods to read, and a component left waiting for a CNI
 * plugin that was never configured would count as unsatisfied in {@code /readyz}. A live sysfs only: with
 * discovery reading a recorded host there is no pod to enter.
 */
@Component(service = PodPortSource.class, configurationPid = PodPortsComponent.CNI_PID,
           configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class PodPortsComponent implements PodPortSource {

    /** bundle-cni's configuration PID (its component is internal to it). */
    static final String CNI_PID = "io.rdmanode.cni";

    private final PodAttachments pods;
    private final NetworkNamespaces namespaces;
    private final RdmaDiscovery discovery;
    /** Kept across scrapes: its error count and warn-once memory belong to the pod reads, not to one scrape. */
    private volatile PodPortSeries current;

    @Activate
    public PodPortsComponent(@Reference PodAttachments pods, @Reference NetworkNamespaces namespaces,
                             @Reference RdmaDiscovery discovery) {
        this.pods = pods;
        this.namespaces = namespaces;
        this.discovery = discovery;
    }

    @Override
    public List<MetricSnapshots> read(Predicate<String> devices, boolean hwCounters) {
        return series(devices, hwCounters).read();
    }

    private PodPortSeries series(Predicate<String> devices, boolean hwCounters) {
        PodPortSeries s = current;
        if (s == null || s.devices() != devices || s.hwCounters() != hwCounters) {
            s = new PodPortSeries(pods::attachments, namespaces, discovery, Path.of("/sys"), devices, hwCounters);
            current = s;
        }
        return s;
    }
}
