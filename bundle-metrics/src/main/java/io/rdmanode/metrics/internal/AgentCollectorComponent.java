// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.rdmanode.agent.AgentProperties;
import io.rdmanode.health.StatusSection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.ComponentServiceObjects;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * Publishes {@link AgentCollector} (fed by the framework and the status whiteboard) and {@link ProcessCollector}
 * (the agent's CPU and memory) as one collector service.
 */
@Component(service = MultiCollector.class)
public final class AgentCollectorComponent implements MultiCollector, AgentFigures {

    private final BundleContext context;
    private final AgentCollector collector = new AgentCollector(this);
    private final ProcessCollector process = new ProcessCollector(Path.of("/proc/self/status"));
    /** Bound sections, each fetched on its first scrape and held until it goes (an unget could deactivate it). */
    private final Map<ComponentServiceObjects<StatusSection>, Optional<StatusSection>> sections =
            new ConcurrentHashMap<>();

    @Activate
    public AgentCollectorComponent(BundleContext context) {
        this.context = context;
    }

    /**
     * Sections are fetched at scrape time, not bound as objects: the metrics endpoint is itself a status section
     * and binds this collector, so binding the objects would make SCR activate each from inside the other
     * (refused as a circular reference, and the section silently missing).
     */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
               service = StatusSection.class)
    void bindSection(ComponentServiceObjects<StatusSection> section) {
        sections.put(section, Optional.empty());
    }

    void unbindSection(ComponentServiceObjects<StatusSection> section) {
        Optional<StatusSection> held = sections.remove(section);
        if (held != null && held.isPresent()) {
            try {
                section.ungetService(held.get());
            } catch (IllegalStateException | IllegalArgumentException gone) {
                // its bundle is stopping
            }
        }
    }

    @Override
    public MetricSnapshots collect() {
        MetricSnapshots.Builder all = MetricSnapshots.builder();
        collector.collect().forEach(all::metricSnapshot);
        process.collect().forEach(all::metricSnapshot);
        return all.build();
    }

    @Override
    public List<BundleFigure> bundles() {
        List<BundleFigure> out = new ArrayList<>();
        for (Bundle b : context.getBundles()) {
            String name = b.getHeaders("").get(AgentProperties.AGENT_BUNDLE_HEADER);
            String bsn = b.getSymbolicName() == null ? "bundle-" + b.getBundleId() : b.getSymbolicName();
            out.add(new BundleFigure(name != null ? name : bsn, bsn, b.getVersion().toString(), state(b.getState())));
        }
        return out;
    }

    @Override
    public Map<String, Object> statusSections() {
        Map<String, Object> out = new LinkedHashMap<>();
        for (var entry : sections.entrySet()) {
            StatusSection section = entry.getValue().orElseGet(() -> fetch(entry.getKey()));
            if (section != null) {
                out.put(section.name(), section.status());
            }
        }
        return out;
    }

    private StatusSection fetch(ComponentServiceObjects<StatusSection> objects) {
        try {
            StatusSection section = objects.getService();
            if (section != null && sections.replace(objects, Optional.empty(), Optional.of(section))) {
                return section;
            }
            if (section != null) {
                objects.ungetService(section); // unbound meanwhile, or another scrape won
            }
            return sections.getOrDefault(objects, Optional.empty()).orElse(null);
        } catch (IllegalStateException gone) {
            return null;
        }
    }

    static String state(int state) {
        return switch (state) {
            case Bundle.INSTALLED -> "installed";
            case Bundle.RESOLVED -> "resolved";
            case Bundle.STARTING -> "starting";
            case Bundle.STOPPING -> "stopping";
            case Bundle.ACTIVE -> "active";
            default -> "uninstalled";
        };
    }
}
