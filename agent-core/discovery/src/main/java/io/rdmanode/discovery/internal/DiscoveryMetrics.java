// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

import java.util.function.Supplier;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.slf4j.LoggerFactory;

/**
 * Discovery's own {@code rdma_agent_discovery_*} series, registered as a client_java {@code MultiCollector}
 * service for the metrics bundle's whiteboard (as the kubelet host does). client_java is an optional import:
 * without lib-prometheus, discovery runs as usual, only without metrics. This class names no client_java type,
 * so it loads either way; {@link DiscoveryCollector} is touched only inside {@link #register}.
 */
final class DiscoveryMetrics implements AutoCloseable {

    /** What the collector reports, read at scrape time. */
    record Figures(long revision, int devices, int problems, long fullScans, long incrementalScans,
                   long failedScans, long kernelEvents, long verbsEvents) { }

    private final ServiceRegistration<?> registration;

    private DiscoveryMetrics(ServiceRegistration<?> registration) {
        this.registration = registration;
    }

    /** @param context null outside OSGi (unit tests): nothing is registered */
    static DiscoveryMetrics register(BundleContext context, Supplier<Figures> figures) {
        if (context == null) {
            return new DiscoveryMetrics(null);
        }
        try {
            return new DiscoveryMetrics(context.registerService(
                    io.prometheus.metrics.model.registry.MultiCollector.class, new DiscoveryCollector(figures), null));
        } catch (NoClassDefFoundError noPrometheus) {
            LoggerFactory.getLogger(DiscoveryMetrics.class)
                    .info("no Prometheus client bundle; discovery metrics are not exported");
            return new DiscoveryMetrics(null);
        }
    }

    @Override
    public void close() {
        if (registration != null) {
            try {
                registration.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the bundle is stopping and the framework unregistered it first
            }
        }
    }
}
