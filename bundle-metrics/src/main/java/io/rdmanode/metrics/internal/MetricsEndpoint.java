// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import com.sun.net.httpserver.HttpExchange;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.rdmanode.health.HttpEndpoint;
import io.rdmanode.health.StatusSection;
import java.io.IOException;
import java.util.Map;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /metrics} on the agent's HTTP port (health bundle's {@link HttpEndpoint} whiteboard). It owns one
 * registry, not client_java's static default: collectors are the {@link MultiCollector} services any bundle
 * registers, this bundle's own (RDMA port counters, agent figures) included, bound and unbound as they come
 * and go. An edit of the {@code metrics} section (which the RDMA collector shares and applies in place too)
 * applies in place ({@link #modified}): the registry and its collectors stay; a new path moves the endpoint when
 * the health bundle sees the service's properties change, and no other edit interrupts a scrape.
 */
@Component(service = {HttpEndpoint.class, StatusSection.class}, configurationPid = MetricsConfig.PID,
           configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = MetricsConfig.class)
public final class MetricsEndpoint implements HttpEndpoint, StatusSection {

    private static final Logger LOG = LoggerFactory.getLogger(MetricsEndpoint.class);

    private volatile String path;
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final CollectorWhiteboard whiteboard = new CollectorWhiteboard(registry);
    private final ScrapeHandler handler = new ScrapeHandler(whiteboard);

    @Activate
    public MetricsEndpoint(MetricsConfig config) {
        MetricsConfigCheck.require(config);
        this.path = config.path();
        LOG.info("metrics endpoint path={} collectors={}", path, whiteboard.size());
    }

    @Modified
    void modified(MetricsConfig config) {
        MetricsConfigCheck.require(config);
        if (!config.path().equals(path)) {
            LOG.info("metrics endpoint path {} -> {}", path, config.path());
        }
        this.path = config.path();
    }

    @Deactivate
    void stop() {
        registry.clear();
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void bindCollector(MultiCollector collector, Map<String, Object> properties) {
        whiteboard.add(collectorName(properties), collector);
    }

    void unbindCollector(MultiCollector collector) {
        whiteboard.remove(collector);
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        handler.handle(exchange);
    }

    @Override
    public String name() {
        return "metrics";
    }

    @Override
    public Object status() {
        return Map.of("path", path, "collectors", whiteboard.status());
    }

    /** DS components are named by {@code component.name}; other services by their id. */
    static String collectorName(Map<String, Object> properties) {
        Object name = properties.get("component.name");
        return name != null ? name.toString() : "service." + properties.get("service.id");
    }
}
