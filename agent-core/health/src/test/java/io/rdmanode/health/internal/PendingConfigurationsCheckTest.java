// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.osgi.framework.Bundle;
import org.osgi.service.cm.Configuration;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.osgi.util.promise.Promise;
import org.junit.jupiter.api.Test;

/** Configurations ConfigAdmin holds against the component instances SCR lists, from hand-built DTOs. */
class PendingConfigurationsCheckTest {

    private static final String POOLS = "io.rdmanode.deviceplugin.sriov.pools";
    private static final Bundle BUNDLE = proxy(Bundle.class, Map.of());

    @Test
    void aFactoryConfigurationWithoutItsInstanceIsPending() {
        Runtime scr = new Runtime();
        ComponentDescriptionDTO pools = scr.describe("SriovPoolDevicePlugin", "require", POOLS);
        scr.instance(pools, POOLS + "~sriov_low", ComponentConfigurationDTO.ACTIVE);

        List<String> pending = PendingConfigurationsCheck.pending(scr, List.of(BUNDLE), new Configuration[] {
                configuration(POOLS + "~sriov_low", POOLS), configuration(POOLS + "~sriov_rdma", POOLS)});

        assertThat(pending).containsExactly(POOLS + "~sriov_rdma (SriovPoolDevicePlugin)");
    }

    @Test
    void anInstanceInAnyStateHasTakenItsConfigurationUp() {
        Runtime scr = new Runtime();
        ComponentDescriptionDTO http = scr.describe("AgentHttpServer", "optional", "io.rdmanode.agent.http");
        scr.instance(http, "io.rdmanode.agent.http", ComponentConfigurationDTO.UNSATISFIED_REFERENCE);
        ComponentDescriptionDTO pools = scr.describe("SharedPoolDevicePlugin", "require", "io.rdmanode.shared.pools");
        scr.instance(pools, "io.rdmanode.shared.pools~hca", ComponentConfigurationDTO.FAILED_ACTIVATION);

        assertThat(PendingConfigurationsCheck.pending(scr, List.of(BUNDLE), new Configuration[] {
                configuration("io.rdmanode.agent.http", null),
                configuration("io.rdmanode.shared.pools~hca", "io.rdmanode.shared.pools")})).isEmpty();
    }

    @Test
    void configurationsNoAgentComponentConsumesAndDisabledOrIgnoringComponentsAreNotWaitedFor() {
        Runtime scr = new Runtime();
        scr.describe("Ignoring", "ignore", "io.rdmanode.ignored");
        ComponentDescriptionDTO off = scr.describe("Off", "require", "io.rdmanode.off");
        scr.disabled.add(off);

        assertThat(PendingConfigurationsCheck.pending(scr, List.of(BUNDLE), new Configuration[] {
                configuration("org.apache.felix.other", null), configuration("io.rdmanode.ignored", null),
                configuration("io.rdmanode.off", null)})).isEmpty();
    }

    private static Configuration configuration(String pid, String factoryPid) {
        return proxy(Configuration.class, factoryPid == null ? Map.of("getPid", pid)
                : Map.of("getPid", pid, "getFactoryPid", factoryPid));
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, Map<String, Object> answers) {
        return (T) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (self, method, args) -> answers.get(method.getName()));
    }

    /** SCR as its DTOs describe it; only what the check asks is implemented. */
    private static final class Runtime implements ServiceComponentRuntime {
        final List<ComponentDescriptionDTO> descriptions = new ArrayList<>();
        final List<ComponentDescriptionDTO> disabled = new ArrayList<>();
        final List<ComponentConfigurationDTO> instances = new ArrayList<>();

        ComponentDescriptionDTO describe(String name, String policy, String pid) {
            ComponentDescriptionDTO description = new ComponentDescriptionDTO();
            description.name = name;
            description.configurationPolicy = policy;
            description.configurationPid = new String[] {pid};
            descriptions.add(description);
            return description;
        }

        void instance(ComponentDescriptionDTO description, String pid, int state) {
            ComponentConfigurationDTO instance = new ComponentConfigurationDTO();
            instance.description = description;
            instance.state = state;
            instance.properties = Map.of("service.pid", pid);
            instances.add(instance);
        }

        @Override
        public Collection<ComponentDescriptionDTO> getComponentDescriptionDTOs(Bundle... bundles) {
            return descriptions;
        }

        @Override
        public ComponentDescriptionDTO getComponentDescriptionDTO(Bundle bundle, String name) {
            return null;
        }

        @Override
        public Collection<ComponentConfigurationDTO> getComponentConfigurationDTOs(ComponentDescriptionDTO d) {
            return instances.stream().filter(i -> i.description == d).toList();
        }

        @Override
        public boolean isComponentEnabled(ComponentDescriptionDTO description) {
            return !disabled.contains(description);
        }

        @Override
        public Promise<Void> enableComponent(ComponentDescriptionDTO description) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Promise<Void> disableComponent(ComponentDescriptionDTO description) {
            throw new UnsupportedOperationException();
        }
    }
}
