// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.rdmanode.health.HealthCheck;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.runtime.ServiceComponentRuntime;

/** {@link HealthSources} read from the running framework: its bundles and SCR's view of their components. */
final class OsgiHealthSources implements HealthSources {

    private final BundleContext context;
    private final Supplier<List<HealthCheck>> checks;
    private final Supplier<ServiceComponentRuntime> scr;
    private final AgentInfo agent;
    private final HealthCheck unresolvedBundles;
    private final HealthCheck startup;
    private final HealthCheck pendingConfigurations;

    OsgiHealthSources(BundleContext context, Supplier<List<HealthCheck>> checks,
                      Supplier<ServiceComponentRuntime> scr, Supplier<ConfigurationAdmin> configAdmin, AgentInfo agent) {
        this.context = context;
        this.checks = checks;
        this.scr = scr;
        this.agent = agent;
        this.unresolvedBundles = new UnresolvedBundlesCheck(context::getBundles);
        boolean signalled = context.getProperty(StartupCheck.SIGNAL_PROPERTY) != null;
        this.startup = new StartupCheck(context::getBundles, () -> !signalled || launcherDone(context));
        this.pendingConfigurations = new PendingConfigurationsCheck(configAdmin, scr, this::agentBundles,
                () -> stopping(context));
    }

    @Override
    public List<HealthCheck> checks() {
        List<HealthCheck> current = checks.get();
        List<HealthCheck> all = new java.util.ArrayList<>(current == null ? List.of() : current);
        all.add(unresolvedBundles);
        all.add(startup);
        all.add(pendingConfigurations);
        return all;
    }

    private static boolean stopping(BundleContext context) {
        try {
            return context.getBundle(0).getState() == Bundle.STOPPING;
        } catch (IllegalStateException e) {
            return true;                                        // this bundle's context is gone: stopping too
        }
    }

    private static boolean launcherDone(BundleContext context) {
        try {
            return context.getServiceReferences((String) null, StartupCheck.COMPLETE_FILTER) != null;
        } catch (org.osgi.framework.InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public List<BundleInfo> bundles() {
        return Arrays.stream(context.getBundles()).map(BundleInfo::of).toList();
    }

    /** Empty while SCR is absent: nothing then runs components that could be reported. */
    @Override
    public List<ComponentInfo> components() {
        ServiceComponentRuntime runtime = scr.get();
        if (runtime == null) {
            return List.of();
        }
        List<Bundle> agentBundles = agentBundles();
        return ComponentStates.of(runtime, agentBundles, StoppedProviders.of(agentBundles));
    }

    private List<Bundle> agentBundles() {
        return Arrays.stream(context.getBundles())
                .filter(b -> b.getHeaders("").get(BundleInfo.AGENT_BUNDLE_HEADER) != null)
                .toList();
    }

    @Override
    public AgentInfo agent() {
        return agent;
    }
}
