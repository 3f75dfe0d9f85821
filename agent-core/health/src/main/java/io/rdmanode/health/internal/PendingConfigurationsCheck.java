// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.osgi.framework.Bundle;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;

/**
 * Readiness waits until every configuration the agent's components consume has reached them. ConfigAdmin hands a
 * configuration to SCR on a thread of its own, after the config bundle applied it: until then the component it
 * creates (a device-plugin pool is one factory configuration) does not exist, so every check that asks the
 * existing components (every pool registered with kubelet) passed without it. A successor then said "ready" with
 * one pool still missing, its predecessor stopped, and kubelet's calls to that pool's old endpoint failed (seen by
 * {@code HandoverIT} once readiness was refreshed at once instead of a second later). A configuration counts as
 * reached when SCR lists a component configuration with its {@code service.pid}, whatever its state: an
 * unsatisfied or failed one is the component checks' to report.
 */
final class PendingConfigurationsCheck implements HealthCheck {

    private final Supplier<ConfigurationAdmin> configAdmin;
    private final Supplier<ServiceComponentRuntime> scr;
    private final Supplier<List<Bundle>> agentBundles;
    private final BooleanSupplier stopping;

    /** @param stopping true while the framework stops: ConfigAdmin and SCR then block on their own shutdown */
    PendingConfigurationsCheck(Supplier<ConfigurationAdmin> configAdmin, Supplier<ServiceComponentRuntime> scr,
                               Supplier<List<Bundle>> agentBundles, BooleanSupplier stopping) {
        this.configAdmin = configAdmin;
        this.scr = scr;
        this.agentBundles = agentBundles;
        this.stopping = stopping;
    }

    @Override
    public String name() {
        return "configurations";
    }

    @Override
    public Kind kind() {
        return Kind.READY;
    }

    @Override
    public HealthStatus check() {
        if (stopping.getAsBoolean()) {
            return HealthStatus.failing("the agent is stopping");
        }
        ConfigurationAdmin admin = configAdmin.get();
        ServiceComponentRuntime runtime = scr.get();
        List<Bundle> bundles = agentBundles.get();
        if (admin == null || runtime == null || bundles.isEmpty()) {
            return HealthStatus.ok("no configuration admin or component runtime to compare");
        }
        Configuration[] configurations;
        try {
            configurations = admin.listConfigurations(null);
        } catch (java.io.IOException | org.osgi.framework.InvalidSyntaxException e) {
            return HealthStatus.failing("cannot list configurations: " + e.getMessage());
        }
        List<String> pending = pending(runtime, bundles, configurations == null ? new Configuration[0] : configurations);
        return pending.isEmpty() ? HealthStatus.ok("every configuration reached its component")
                : HealthStatus.failing("configuration not yet taken up by its component: " + String.join(", ", pending));
    }

    /** {@code pid (component)} for each configuration an enabled component consumes but has no instance for. */
    static List<String> pending(ServiceComponentRuntime runtime, List<Bundle> bundles, Configuration[] configurations) {
        Map<String, List<ComponentDescriptionDTO>> consumers = new HashMap<>();
        for (ComponentDescriptionDTO description : runtime.getComponentDescriptionDTOs(bundles.toArray(Bundle[]::new))) {
            if ("ignore".equals(description.configurationPolicy) || description.configurationPid == null
                    || !runtime.isComponentEnabled(description)) {
                continue;
            }
            for (String pid : description.configurationPid) {
                consumers.computeIfAbsent(pid, p -> new ArrayList<>()).add(description);
            }
        }
        List<String> pending = new ArrayList<>();
        for (Configuration configuration : configurations) {
            String key = configuration.getFactoryPid() != null ? configuration.getFactoryPid() : configuration.getPid();
            for (ComponentDescriptionDTO description : consumers.getOrDefault(key, List.of())) {
                if (!takenUp(runtime.getComponentConfigurationDTOs(description), configuration.getPid())) {
                    pending.add(configuration.getPid() + " (" + description.name + ")");
                }
            }
        }
        pending.sort(null);
        return pending;
    }

    private static boolean takenUp(Collection<ComponentConfigurationDTO> instances, String pid) {
        for (ComponentConfigurationDTO instance : instances) {
            Object servicePid = instance.properties == null ? null : instance.properties.get("service.pid");
            if (pid.equals(servicePid)
                    || servicePid instanceof String[] pids && Arrays.asList(pids).contains(pid)
                    || servicePid instanceof Collection<?> list && list.contains(pid)) {
                return true;
            }
        }
        return false;
    }
}
