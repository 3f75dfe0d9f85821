// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The one selector engine on the recorded ConnectX-5 host (2 PFs, ens1f0 = 0000:3b:00.0 and ens2f0 =
 * 0000:86:00.0, 8 VFs each, NUMA 0 and 1): AND across kinds, OR within a list, at HCA and VF granularity.
 */
class SelectorsTest {

    @TempDir
    static Path dir;
    static HostSnapshot host;
    static final DevicePluginLayer LAYER = new io.rdmanode.deviceplugin.internal.Layer(new LayerSettings(DevicePaths.DEFAULT, List.of()));

    @BeforeAll
    static void unpack() {
        host = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir).snapshot();
    }

    private static List<String> list(String values) {
        return values == null ? List.of() : Arrays.asList(values.split(" "));
    }

    @ParameterizedTest(name = "HCA vendors={0} devices={1} drivers={2} ifNames={3} linkTypes={4}")
    @CsvSource(delimiter = '|', nullValues = "-", value = {
        "15b3      | -         | -         | -                 | -          | 18",
        "0x15B3    | -         | -         | -                 | -          | 18",
        "8086      | -         | -         | -                 | -          | 0",
        "-         | 1017      | -         | -                 | -          | 2",
        "-         | 1017 1018 | -         | -                 | -          | 18",
        "15b3      | 1018      | -         | -                 | -          | 16",
        "-         | -         | mlx5_core | -                 | -          | 18",
        "-         | -         | i40e      | -                 | -          | 0",
        "-         | -         | -         | ens1f0 ens2f0     | -          | 2",
        "-         | 1018      | -         | ens1f0 ens2f0     | -          | 0",
        "-         | -         | -         | -                 | ether      | 18",
        "-         | -         | -         | -                 | infiniband | 0",
        "15b3      | 1017      | mlx5_core | ens2f0            | ether      | 1"})
    void hcasMatchingEveryKindAndAnyValueOfEachKind(String vendors, String devices, String drivers, String ifNames,
                                                    String linkTypes, int expected) {
        Selectors s = Selectors.of(list(vendors), list(devices), list(drivers), list(ifNames), list(linkTypes));

        assertThat(s.select(LAYER.candidates(host, Granularity.HCA)).matched()).hasSize(expected);
    }

    @ParameterizedTest(name = "VF pciAddresses={0} pfNames={1} rootDevices={2} isRdma={3}")
    @CsvSource(delimiter = '|', nullValues = "-", value = {
        "-                         | -                   | -                     | -     | 16",
        "-                         | ens1f0              | -                     | -     | 8",
        "-                         | ens1f0#0-3          | -                     | -     | 4",
        "-                         | ENS1F0#1,3-5        | -                     | -     | 4",
        "-                         | ens1f0#0 ens2f0#7   | -                     | -     | 2",
        "-                         | -                   | 0000:86:00.0          | -     | 8",
        "-                         | -                   | 0000:86:00.0#2-3      | -     | 2",
        "-                         | ens1f0              | 0000:86:00.0          | -     | 0",
        "0000:3b:00.2 0000:86:00.2 | -                   | -                     | -     | 2",
        "0000:3b:00.2 0000:86:00.2 | ens2f0              | -                     | -     | 1",
        "-                         | -                   | -                     | true  | 16",
        "-                         | -                   | -                     | false | 0"})
    void vfsBySriovSelectorsWithVfRanges(String pciAddresses, String pfNames, String rootDevices, String isRdma,
                                         int expected) {
        Selectors s = new Selectors(List.of(), List.of(), List.of(), list(pciAddresses), List.of(),
                Selectors.pfSelectors("pfNames", list(pfNames)), Selectors.pfSelectors("rootDevices", list(rootDevices)),
                List.of(), Optional.ofNullable(isRdma).map(Boolean::valueOf));

        assertThat(s.select(LAYER.candidates(host, Granularity.VF)).matched()).hasSize(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "HCA | mlx5_0       | vendors=8086              | vendors      | vendor 15b3 not in vendors [8086]",
        "HCA | mlx5_1       | devices=1017              | devices      | device ID 1018 not in deviceIDs [1017]",
        "HCA | mlx5_0       | drivers=i40e              | drivers      | driver mlx5_core not in drivers [i40e]",
        "HCA | mlx5_0       | ifNames=ens2f0            | ifNames      | netdevs [ens1f0] not in ifNames [ens2f0]",
        "HCA | mlx5_0       | linkTypes=infiniband      | linkTypes    | link layers [ethernet] not in linkTypes [infiniband]",
        "VF  | 0000:3b:00.2 | pciAddresses=0000:86:00.2 | pciAddresses | PCI address 0000:3b:00.2 not in pciAddresses [0000:86:00.2]",
        "VF  | 0000:3b:00.2 | pfNames=ens1f0#1-3        | pfNames      | PF [ens1f0] VF 0 not in pfNames [ens1f0#1-3]",
        "VF  | 0000:3b:00.2 | rootDevices=0000:86:00.0  | rootDevices  | PF 0000:3b:00.0 VF 0 not in rootDevices [0000:86:00.0]",
        "VF  | 0000:3b:00.2 | isRdma=false              | isRdma       | RDMA true (RDMA device present) not isRdma false"})
    void everyExclusionNamesTheSelectorAndTheDevicesValue(Granularity granularity, String key, String selector,
                                                          String kind, String reason) {
        String[] kv = selector.split("=");
        List<String> v = List.of(kv[1]);
        Selectors s = new Selectors(kv[0].equals("vendors") ? v : List.of(), kv[0].equals("devices") ? v : List.of(),
                kv[0].equals("drivers") ? v : List.of(), kv[0].equals("pciAddresses") ? v : List.of(),
                kv[0].equals("ifNames") ? v : List.of(),
                kv[0].equals("pfNames") ? Selectors.pfSelectors("pfNames", v) : List.of(),
                kv[0].equals("rootDevices") ? Selectors.pfSelectors("rootDevices", v) : List.of(),
                kv[0].equals("linkTypes") ? v : List.of(),
                kv[0].equals("isRdma") ? Optional.of(Boolean.valueOf(kv[1])) : Optional.empty());
        CandidateDevice c = LAYER.candidates(host, granularity).stream().filter(d -> d.key().equals(key))
                .findFirst().orElseThrow();

        Exclusion e = s.exclusion(c).orElseThrow();

        assertThat(e.selector()).isEqualTo(kind);
        assertThat(e.device()).isEqualTo(key);
        assertThat(e.reason()).isEqualTo(reason);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "ens1f0#      | expected <pf>#<vf>",
        "ens1f0#a-2   | VF range 'a-2' is not <n> or <n>-<m>",
        "ens1f0#3-1   | VF range 3-1 must be ascending",
        "#1           | expected <pf>#<vf>"})
    void refusesBadVfRangesNamingTheEntry(String entry, String message) {
        assertThatThrownBy(() -> Selectors.pfSelectors("pfNames", List.of(entry)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pfNames")
                .hasMessageContaining(message);
    }

    @Test
    void refusesBadValuesOfEveryCheckedKind() {
        assertThatThrownBy(() -> Selectors.of(List.of("15b3x"), List.of(), List.of(), List.of(), List.of()))
                .hasMessageContaining("vendors: '15b3x'");
        assertThatThrownBy(() -> Selectors.of(List.of(), List.of(), List.of(), List.of(), List.of("fddi")))
                .hasMessageContaining("linkTypes: 'fddi'");
        assertThatThrownBy(() -> new Selectors(List.of(), List.of(), List.of(), List.of("3b:00.2"), List.of(),
                List.of(), List.of(), List.of(), Optional.empty())).hasMessageContaining("pciAddresses: '3b:00.2'");
        assertThatThrownBy(() -> new Selectors(List.of(), List.of(), List.of(), List.of(), List.of(), List.of(),
                Selectors.pfSelectors("rootDevices", List.of("ens1f0#1")), List.of(), Optional.empty()))
                .hasMessageContaining("rootDevices: 'ens1f0#1'");
        assertThat(Selectors.NONE.isEmpty()).isTrue();
    }
}
