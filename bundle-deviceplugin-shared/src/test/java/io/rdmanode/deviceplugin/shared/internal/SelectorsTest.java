// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDevice;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Selector semantics on the recorded ConnectX-5 host: AND across kinds, OR within a list. */
class SelectorsTest {

    @TempDir
    static Path dir;
    static HostSnapshot host;

    @BeforeAll
    static void unpack() {
        host = FixtureDiscovery.unpack("cx5-roce-sriov", dir).snapshot();
    }

    private static List<String> list(String values) {
        return values == null ? List.of() : Arrays.asList(values.split(" "));
    }

    @ParameterizedTest(name = "vendors={0} deviceIDs={1} drivers={2} ifNames={3} linkTypes={4}")
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
    void takesDevicesMatchingEveryKindAndAnyValueOfEachKind(String vendors, String deviceIds, String drivers,
                                                            String ifNames, String linkTypes, int expected) {
        Selectors s = new Selectors(list(vendors), list(deviceIds), list(drivers), list(ifNames), list(linkTypes));

        List<RdmaDevice> taken = host.devices().stream().filter(d -> s.exclusion(d, host).isEmpty()).toList();

        assertThat(taken).hasSize(expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "mlx5_0 | vendors=8086             | vendor 15b3 not in vendors [8086]",
        "mlx5_1 | deviceIDs=1017           | device ID 1018 not in deviceIDs [1017]",
        "mlx5_0 | drivers=i40e             | driver mlx5_core not in drivers [i40e]",
        "mlx5_0 | ifNames=ens2f0           | netdevs [ens1f0] not in ifNames [ens2f0]",
        "mlx5_0 | linkTypes=infiniband     | link layers [ethernet] not in linkTypes [infiniband]"})
    void namesTheSelectorThatExcludedADevice(String device, String selector, String reason) {
        String[] kv = selector.split("=");
        List<String> v = List.of(kv[1]);
        Selectors s = new Selectors(kv[0].equals("vendors") ? v : List.of(), kv[0].equals("deviceIDs") ? v : List.of(),
                kv[0].equals("drivers") ? v : List.of(), kv[0].equals("ifNames") ? v : List.of(),
                kv[0].equals("linkTypes") ? v : List.of());

        assertThat(s.exclusion(host.device(device).orElseThrow(), host)).hasValue(reason);
    }
}
