// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registers the config bundle's {@link ConfigCollector} as a client_java {@code MultiCollector} service for the
 * metrics bundle's whiteboard, as the kubelet host does with its collector. client_java is an optional import:
 * without the lib-prometheus bundle the bridge works as usual, only without metrics.
 */
final class ConfigMetrics implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConfigMetrics.class);

    private final ServiceRegistration<?> registration;

    private ConfigMetrics(ServiceRegistration<?> registration) {
        this.registration = registration;
    }

    static ConfigMetrics register(BundleContext context, ConfigHistory history) {
        try {
            return new ConfigMetrics(context.registerService(
                    io.prometheus.metrics.model.registry.MultiCollector.class,
                    new ConfigCollector(history::appliedCount, history::rejectedCount), null));
        } catch (NoClassDefFoundError noPrometheus) {
            LOG.info("no Prometheus client bundle; config metrics are not exported");
            return new ConfigMetrics(null);
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
