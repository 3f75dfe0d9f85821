// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.agent.ConfigValidator;
import io.rdmanode.agent.RdmaDeviceChooser;
import io.rdmanode.agent.SettingException;
import io.rdmanode.agent.testing.Proposals;
import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.Granularity;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.deviceplugin.testing.DevicePluginTesting;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The layer's {@link RdmaDeviceChooser} on the recorded ConnectX-5 host (two RoCE PFs with 8 VFs each, every one
 * an HCA candidate with its own RDMA device): the pools' selectors pick the device, and the layer's check refuses
 * bad ones under {@code deviceSelectors.} in any configuration (the Freeflow router's).
 */
class DeviceChoiceTest {

    @TempDir
    static Path dir;
    static RdmaDiscovery discovery;
    static DevicePluginLayer layer;
    static RdmaDeviceChooser chooser;

    @BeforeAll
    static void unpack() {
        discovery = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir);
        layer = DevicePluginTesting.layer(new LayerSettings(DevicePaths.DEFAULT, List.of()));
        chooser = new LayerDeviceChooser(layer, discovery);
    }

    @AfterAll
    static void close() {
        DevicePluginTesting.close(layer);
    }

    static List<String> hcas() {
        return layer.candidates(discovery.snapshot(), Granularity.HCA).stream()
                .map(c -> c.rdma().orElseThrow().name()).toList();
    }

    @Test
    void theFirstHcaBySortedKeyThatTheSelectorsTakeIsChosen() {
        assertThat(hcas()).hasSize(18);
        assertThat(chooser.choose(Map.of("vendors", List.of("15b3")))).as("every HCA taken: the first")
                .isEqualTo(hcas().get(0));
        String ens2f0 = chooser.choose(Map.of("ifNames", List.of("ens2f0")));
        assertThat(ens2f0).isIn(hcas()).isNotEqualTo(hcas().get(0));
        assertThat(chooser.choose(Map.of("devices", List.of("0x1017"), "ifNames", List.of("ens2f0"))))
                .as("AND across kinds, ids normalised as the pools' are").isEqualTo(ens2f0);
    }

    @Test
    void selectorsThatTakeNothingNameEveryCandidateAndWhy() {
        assertThatThrownBy(() -> chooser.choose(Map.of("vendors", List.of("8086"))))
                .isInstanceOf(IllegalArgumentException.class).isNotInstanceOf(SettingException.class)
                .hasMessageStartingWith("the device selectors take no RDMA device on this host (")
                .hasMessageContaining("8086");
    }

    @Test
    void aBadSelectorIsRefusedAtItsOwnDeviceSelectorsKey() {
        assertThatThrownBy(() -> chooser.choose(Map.of("vendors", List.of("mellanox"))))
                .isInstanceOfSatisfying(SettingException.class, e -> {
                    assertThat(e.property()).isEqualTo("deviceSelectors.vendors");
                    assertThat(e.getMessage()).contains("'mellanox' is not a PCI id");
                });
        assertThatThrownBy(() -> chooser.choose(Map.of("isRdma", List.of("true"))))
                .isInstanceOfSatisfying(SettingException.class, e ->
                        assertThat(e.property()).isEqualTo("deviceSelectors.isRdma"));
    }

    @Test
    void theLayersCheckRefusesBadDeviceSelectorsInAnyConfigurationKindByKind() {
        Map<String, Map<String, Object>> m = Map.of("io.rdmanode.freeflow", Map.of(
                "transport", "verbs",
                "deviceSelectors.vendors", new String[] {"15b3", "zz"},
                "deviceSelectors.pciAddresses", new String[] {"0000:3b:00.0"},
                "deviceSelectors.pfNames", new String[] {"ens1f0#9-3"}));
        List<ConfigValidator.Refusal> refusals = new DevicePluginValidator().validate(Proposals.of(m));
        assertThat(refusals).extracting(ConfigValidator.Refusal::configuration).containsOnly("io.rdmanode.freeflow");
        assertThat(refusals).extracting(ConfigValidator.Refusal::property)
                .containsExactlyInAnyOrder("deviceSelectors.vendors", "deviceSelectors.pfNames");

        assertThat(new DevicePluginValidator().validate(Proposals.of(Map.of("io.rdmanode.freeflow", Map.of(
                "deviceSelectors.ifNames", new String[] {"ens1f0"}, "deviceSelectors.linkTypes",
                new String[] {"ether"}))))).isEmpty();
    }
}
