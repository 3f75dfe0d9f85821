// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;

import io.rdmanode.agent.ConfigValidator;
import io.rdmanode.agent.testing.Proposals;
import io.rdmanode.deviceplugin.testing.DevicePluginTesting;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.util.converter.Converters;

/** {@code freeflow.transport} and {@code freeflow.device}: what the component's own validator refuses. */
class FreeflowTransportConfigTest {

    @Test
    void verbs_with_a_device_the_kernel_does_not_list_is_refused_naming_the_devices_there_are(@TempDir Path sys)
            throws Exception {
        Files.createDirectory(sys.resolve("rxe0"));
        Files.createDirectory(sys.resolve("mlx5_1"));
        assertThat(FreeflowConfigCheck.transportProblem("verbs", "nosuch0", sys)).isEqualTo("device: RDMA device"
                + " 'nosuch0' does not exist on this host (" + sys + " lists mlx5_1, rxe0)");
        assertThat(FreeflowConfigCheck.transportProblem("verbs", "rxe0", sys)).isNull();
        assertThat(FreeflowConfigCheck.transportProblem("verbs", "nosuch0", sys.resolve("absent")))
                .endsWith("lists no device)");
    }

    @Test
    void the_transport_is_software_or_verbs_and_verbs_needs_a_device_name(@TempDir Path sys) {
        assertThat(FreeflowConfigCheck.transportProblem("software", "", sys)).isNull();
        assertThat(FreeflowConfigCheck.transportProblem("software", "whatever", sys)).as("device unused").isNull();
        assertThat(FreeflowConfigCheck.transportProblem("rdma", "", sys))
                .isEqualTo("transport: 'rdma' is not a transport; software or verbs");
        assertThat(FreeflowConfigCheck.transportProblem("verbs", " ", sys)).startsWith("device: transport verbs needs");
        assertThat(FreeflowConfigCheck.transportProblem("verbs", "../etc", sys))
                .isEqualTo("device: '../etc' is not an RDMA device name");
    }

    @Test
    void opening_a_device_libibverbs_does_not_list_names_the_ones_it_does() {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1"))
                || Files.exists(Path.of("/lib/x86_64-linux-gnu/libibverbs.so.1"))
                || Files.exists(Path.of("/usr/lib/aarch64-linux-gnu/libibverbs.so.1")), "no libibverbs.so.1 here");
        java.util.List<String> present = io.rdmanode.freeflow.internal.verbs.LibibverbsDevice.deviceNames("libibverbs.so.1");
        assertThatThrownBy(() -> io.rdmanode.freeflow.internal.verbs.LibibverbsDevice.open("libibverbs.so.1",
                "nosuch-rdma-device0")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("freeflow.device nosuch-rdma-device0 does not exist; libibverbs lists "
                        + (present.isEmpty() ? "no device" : String.join(", ", present)));
        assertThatThrownBy(() -> io.rdmanode.freeflow.internal.verbs.LibibverbsDevice.open("libnosuchverbs.so.1", "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(
                        "freeflow.transport verbs: cannot load libnosuchverbs.so.1");
    }

    @Test
    void the_validator_and_the_activation_check_refuse_a_missing_device_at_the_device_key() {
        String absent = "nosuch-rdma-device0";
        Map<String, Object> props = new HashMap<>(Map.of("transport", "verbs", "device", absent));
        ConfigValidator.Proposal proposal = new ConfigValidator.Proposal() {
            @Override
            public Map<String, Map<String, Object>> configurations() {
                return Map.of(FreeflowComponent.PID, props);
            }

            @Override
            public <T> Optional<T> service(Class<T> type) {
                return Optional.empty();
            }
        };
        assertThat(new FreeflowConfigCheck().validate(proposal)).singleElement().satisfies(r -> {
            assertThat(r.property()).isEqualTo("device");
            assertThat(r.message()).startsWith("RDMA device '" + absent + "' does not exist on this host");
        });
        FreeflowComponent.Config config = Converters.standardConverter().convert(props).to(FreeflowComponent.Config.class);
        assertThatThrownBy(() -> FreeflowConfigCheck.require(config)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + absent + "' does not exist");

        props.put("transport", "software");
        assertThat(new FreeflowConfigCheck().validate(proposal)).isEmpty();
        assertThat(FreeflowComponent.backend(Converters.standardConverter().convert(props)
                .to(FreeflowComponent.Config.class)).verbs()).isFalse();
    }

    private static List<ConfigValidator.Refusal> check(ConfigValidator validator, Map<String, Object> props) {
        return validator.validate(Proposals.of(FreeflowComponent.PID, props));
    }

    private static FreeflowComponent.Config config(Map<String, Object> props) {
        return Converters.standardConverter().convert(props).to(FreeflowComponent.Config.class);
    }

    @Test
    void device_selectors_replace_the_device_name_and_exclude_it() {
        Map<String, Object> selected = Map.of("transport", "verbs", "deviceSelectors.vendors", new String[] {"15b3"});
        assertThat(check(new FreeflowConfigCheck(), selected)).isEmpty();
        FreeflowConfigCheck.require(config(selected));
        assertThat(FreeflowComponent.deviceSelectors(config(selected))).isEqualTo(Map.of("vendors", List.of("15b3")));

        Map<String, Object> both = Map.of("transport", "verbs", "device", "rxe0",
                "deviceSelectors.ifNames", new String[] {"ens1f0"});
        assertThat(check(new FreeflowConfigCheck(), both)).singleElement().satisfies(r -> {
            assertThat(r.property()).isEqualTo("device");
            assertThat(r.message()).isEqualTo("freeflow.device and freeflow.deviceSelectors exclude each other; name"
                    + " the device or select it");
        });
        assertThatThrownBy(() -> FreeflowConfigCheck.require(config(both))).hasMessageContaining("exclude each other");

        assertThat(FreeflowConfigCheck.transportProblem("verbs", "", Path.of("/nonexistent")))
                .as("neither").endsWith("or freeflow.deviceSelectors");
        assertThat(FreeflowComponent.Identity.of(config(Map.of("transport", "software",
                "deviceSelectors.vendors", new String[] {"8086"}))).choosesDevice())
                .as("selectors mean nothing to the software transport").isFalse();
    }

    /**
     * The selectors' values are the pools' and the device-plugin bundle's check judges them, wherever they are: in
     * the running agent and in check-config every installed bundle's validator sees the freeflow section, so a bad
     * one is refused at its own key although this bundle imports none of the rules.
     */
    @Test
    void a_bad_or_unknown_selector_is_refused_at_its_own_key_by_the_layers_check() {
        ConfigValidator layerCheck = DevicePluginTesting.validator();
        Map<String, Object> bad = Map.of("transport", "verbs", "deviceSelectors.vendors", new String[] {"mellanox"},
                "deviceSelectors.pciAddresses", new String[] {"3b:00.0"}, "deviceSelectors.ifNames",
                new String[] {"ens1f0"});
        assertThat(check(layerCheck, bad)).extracting(ConfigValidator.Refusal::configuration,
                ConfigValidator.Refusal::property, ConfigValidator.Refusal::message).containsExactlyInAnyOrder(
                        tuple(FreeflowComponent.PID, "deviceSelectors.vendors",
                                "vendors: 'mellanox' is not a PCI id (hex, e.g. 15b3)"),
                        tuple(FreeflowComponent.PID, "deviceSelectors.pciAddresses",
                                "pciAddresses: '3b:00.0' is not a PCI address (dddd:bb:dd.f)"));
        assertThat(check(new FreeflowConfigCheck(), bad)).as("this bundle's own check: nothing more").isEmpty();

        assertThat(check(layerCheck, Map.of("transport", "verbs", "deviceSelectors.deviceIDs",
                new String[] {"1017"}))).singleElement().satisfies(r -> {
                    assertThat(r.property()).isEqualTo("deviceSelectors.deviceIDs");
                    assertThat(r.message()).contains("not a selector kind here; one of vendors, devices,");
                });
    }
}
