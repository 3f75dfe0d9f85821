// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.osgi.framework.dto.BundleDTO;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.osgi.service.component.runtime.dto.ReferenceDTO;
import org.osgi.service.component.runtime.dto.UnsatisfiedReferenceDTO;

/** Readiness from hand-built SCR DTOs, as {@code ServiceComponentRuntime} would return them. */
class ComponentStatesTest {

    private static final String PLUGIN = "io.rdmanode.deviceplugin.internal.SharedPoolDevicePlugin";

    @Test
    void activeAndSatisfiedComponentsAreReady() {
        List<ComponentInfo> infos = describe(description(PLUGIN), configuration(ComponentConfigurationDTO.ACTIVE),
                configuration(ComponentConfigurationDTO.SATISFIED));

        assertThat(infos).extracting(ComponentInfo::state).containsExactly("ACTIVE", "SATISFIED");
        assertThat(infos).allMatch(i -> i.counted() && !i.failing());
        assertThat(HealthReport.readiness(List.of(), infos).ok()).isTrue();
    }

    @Test
    void unsatisfiedReferenceFailsNamingReferenceInterfaceAndTarget() {
        ComponentDescriptionDTO description = description(PLUGIN);
        description.references = new ReferenceDTO[] {
            reference("discovery", "io.rdmanode.discovery.RdmaDiscovery"),
            reference("host", "io.rdmanode.kubelet.DevicePluginHost")};
        ComponentConfigurationDTO configuration = configuration(ComponentConfigurationDTO.UNSATISFIED_REFERENCE);
        configuration.unsatisfiedReferences = new UnsatisfiedReferenceDTO[] {
            unsatisfied("discovery", null), unsatisfied("host", "(socket=kubelet.sock)")};

        ComponentInfo info = ComponentStates.describe(description, true, List.of(configuration)).get(0);

        assertThat(info.state()).isEqualTo("UNSATISFIED_REFERENCE");
        assertThat(info.failing()).isTrue();
        assertThat(info.detail()).isEqualTo("unsatisfied reference discovery (io.rdmanode.discovery.RdmaDiscovery);"
                + " unsatisfied reference host (io.rdmanode.kubelet.DevicePluginHost, target (socket=kubelet.sock))");
        assertThat(HealthReport.readiness(List.of(), List.of(info)).verbose()).isEqualTo("""
                [-]component:%s failed: %s (bundle io.rdmanode.deviceplugin)
                readyz check failed
                """.formatted(PLUGIN, info.detail()));
    }

    @Test
    void waitingOnlyForABundleTheOperatorDisabledDoesNotHoldReadinessBack() {
        ComponentDescriptionDTO description = description("io.rdmanode.deviceplugin.sriov.internal.CniPlacements");
        description.references = new ReferenceDTO[] {reference("attachments", "io.rdmanode.cni.PodAttachments")};
        ComponentConfigurationDTO configuration = configuration(ComponentConfigurationDTO.UNSATISFIED_REFERENCE);
        configuration.unsatisfiedReferences = new UnsatisfiedReferenceDTO[] {unsatisfied("attachments", null)};
        StoppedProviders cniOff = new StoppedProviders(java.util.Map.of("io.rdmanode.cni", "cni"));

        ComponentInfo info = ComponentStates.describe(description, true, List.of(configuration), cniOff).get(0);
        ComponentInfo otherOff = ComponentStates.describe(description, true, List.of(configuration),
                new StoppedProviders(java.util.Map.of("io.rdmanode.freeflow", "freeflow"))).get(0);

        assertThat(info.failing()).isFalse();
        assertThat(info.counted()).isFalse();
        assertThat(info.detail()).endsWith("provided by cni, which is disabled (agent.bundles.cni.enabled = false)");
        assertThat(HealthReport.readiness(List.of(), List.of(info)).ok()).isTrue();
        assertThat(otherOff.failing()).isTrue();
    }

    @Test
    void failedActivationFailsWithTheFirstLineOfTheFailure() {
        ComponentConfigurationDTO configuration = configuration(ComponentConfigurationDTO.FAILED_ACTIVATION);
        configuration.failure = """
                java.io.UncheckedIOException: cannot bind /var/lib/kubelet/device-plugins/rdma.sock: Permission denied
                \tat io.rdmanode.kubelet.internal.DevicePluginServer.<init>(DevicePluginServer.java:42)
                """;

        ComponentInfo info = describe(description(PLUGIN), configuration).get(0);

        assertThat(info.failing()).isTrue();
        assertThat(info.detail()).isEqualTo("activation failed: java.io.UncheckedIOException: cannot bind"
                + " /var/lib/kubelet/device-plugins/rdma.sock: Permission denied");
    }

    /** SCR wraps the constructor's exception: the reason is the component's own exception, not the wrapper. */
    @Test
    void failedActivationNamesTheComponentsExceptionNotTheReflectionWrapper() {
        ComponentConfigurationDTO configuration = configuration(ComponentConfigurationDTO.FAILED_ACTIVATION);
        configuration.failure = """
                java.lang.reflect.InvocationTargetException
                \tat java.base/jdk.internal.reflect.NativeConstructorAccessorImpl.newInstance0(Native Method)
                Caused by: java.io.UncheckedIOException: cannot serve the CNI socket /tmp/afile/cni.sock
                \tat io.rdmanode.cni.internal.CniComponent.<init>(CniComponent.java:120)
                Caused by: java.nio.file.FileAlreadyExistsException: /tmp/afile
                \t... 12 more
                """;

        ComponentInfo info = describe(description(PLUGIN), configuration).get(0);

        assertThat(info.detail()).isEqualTo("activation failed: java.io.UncheckedIOException: cannot serve the CNI"
                + " socket /tmp/afile/cni.sock");
    }

    @Test
    void failedActivationWithoutRecordedFailureStillSaysSo() {
        ComponentInfo info = describe(description(PLUGIN),
                configuration(ComponentConfigurationDTO.FAILED_ACTIVATION)).get(0);

        assertThat(info.detail()).isEqualTo("activation failed: no failure recorded by SCR");
    }

    @Test
    void waitingForRequiredConfigurationIsListedButDoesNotFailReadiness() {
        ComponentDescriptionDTO description = description(PLUGIN);
        description.configurationPid = new String[] {"io.rdmanode.deviceplugin.shared.pools"};

        List<ComponentInfo> explicit = describe(description,
                configuration(ComponentConfigurationDTO.UNSATISFIED_CONFIGURATION));
        List<ComponentInfo> noConfigurationYet = ComponentStates.describe(description, true, List.of());

        for (List<ComponentInfo> infos : List.of(explicit, noConfigurationYet)) {
            assertThat(infos).singleElement().satisfies(info -> {
                assertThat(info.state()).isEqualTo("UNSATISFIED_CONFIGURATION");
                assertThat(info.detail()).isEqualTo("waiting for configuration io.rdmanode.deviceplugin.shared.pools");
                assertThat(info.counted()).isFalse();
            });
            assertThat(HealthReport.readiness(List.of(), infos).ok()).isTrue();
        }
    }

    @Test
    void disabledComponentsDoNotCount() {
        List<ComponentInfo> infos = ComponentStates.describe(description(PLUGIN), false,
                List.of(configuration(ComponentConfigurationDTO.FAILED_ACTIVATION)));

        assertThat(infos).singleElement().satisfies(info -> {
            assertThat(info.state()).isEqualTo("DISABLED");
            assertThat(info.counted()).isFalse();
        });
        assertThat(HealthReport.readiness(List.of(), infos).verbose()).isEqualTo("readyz check passed\n");
    }

    @Test
    void namedFactoryConfigurationsAreToldApart() {
        ComponentConfigurationDTO a = configuration(ComponentConfigurationDTO.ACTIVE);
        a.properties = Map.of("service.factoryPid", "io.rdmanode.deviceplugin.shared.pools",
                "service.pid", "io.rdmanode.deviceplugin.shared.pools~hca_a");
        ComponentConfigurationDTO b = configuration(ComponentConfigurationDTO.FAILED_ACTIVATION);
        b.properties = Map.of("service.factoryPid", "io.rdmanode.deviceplugin.shared.pools",
                "service.pid", "io.rdmanode.deviceplugin.shared.pools~hca_b");
        b.failure = "java.lang.IllegalStateException: no device matches the selectors";

        List<ComponentInfo> infos = describe(description(PLUGIN), a, b);

        assertThat(infos).extracting(ComponentInfo::name).containsExactly(PLUGIN + "~hca_a", PLUGIN + "~hca_b");
        assertThat(HealthReport.readiness(List.of(), infos).verbose()).isEqualTo("""
                [+]component:%1$s~hca_a ok: active (bundle io.rdmanode.deviceplugin)
                [-]component:%1$s~hca_b failed: activation failed: java.lang.IllegalStateException: no device \
                matches the selectors (bundle io.rdmanode.deviceplugin)
                readyz check failed
                """.formatted(PLUGIN));
    }

    private static List<ComponentInfo> describe(ComponentDescriptionDTO description,
                                                ComponentConfigurationDTO... configurations) {
        return ComponentStates.describe(description, true, List.of(configurations));
    }

    private static ComponentDescriptionDTO description(String name) {
        ComponentDescriptionDTO description = new ComponentDescriptionDTO();
        description.name = name;
        description.bundle = new BundleDTO();
        description.bundle.symbolicName = "io.rdmanode.deviceplugin";
        description.configurationPid = new String[] {name};
        description.references = new ReferenceDTO[0];
        return description;
    }

    private static ComponentConfigurationDTO configuration(int state) {
        ComponentConfigurationDTO configuration = new ComponentConfigurationDTO();
        configuration.state = state;
        configuration.properties = Map.of();
        configuration.unsatisfiedReferences = new UnsatisfiedReferenceDTO[0];
        return configuration;
    }

    private static ReferenceDTO reference(String name, String interfaceName) {
        ReferenceDTO reference = new ReferenceDTO();
        reference.name = name;
        reference.interfaceName = interfaceName;
        return reference;
    }

    private static UnsatisfiedReferenceDTO unsatisfied(String name, String target) {
        UnsatisfiedReferenceDTO reference = new UnsatisfiedReferenceDTO();
        reference.name = name;
        reference.target = target;
        return reference;
    }
}
