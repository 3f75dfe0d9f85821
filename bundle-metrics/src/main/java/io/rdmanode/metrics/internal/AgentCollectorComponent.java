// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.rdmanode.agent.AgentProperties;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

/**
 * Publishes {@link AgentCollector} (fed by the framework) and {@link ProcessCollector} (the agent's CPU and
 * memory) as one collector service. It binds no status sections: a scrape does not build the {@code /status}
 * tree (issue 9, item 5).
 */
@Component(service = MultiCollector.class)
public final class AgentCollectorComponent implements MultiCollector, AgentFigures {

    private final BundleContext context;
    private final AgentCollector collector = new AgentCollector(this);
    private final ProcessCollector process = new ProcessCollector(Path.of("/proc/self/status"));
    @Activate
    public AgentCollectorComponent(BundleContext context) {
        this.context = context;
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
