// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.deviceplugin.Selectors;
import io.rdmanode.deviceplugin.testing.DevicePluginTesting;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pool's selectors, in the device-plugin pools' language, on the recorded ConnectX-5 host. */
class PoolDevicesTest {

    @TempDir
    static Path hostDir;

    private static HostSnapshot host;
    private static final DevicePluginLayer LAYER = DevicePluginTesting.layer(LayerSettings.DEFAULT);

    @BeforeAll
    static void unpack() {
        host = RecordedHostDiscovery.unpack("cx5-roce-sriov", hostDir).snapshot();
    }

    private static Selectors pfNames(String... entries) {
        return new Selectors(List.of(), List.of(), List.of(), List.of(), List.of(),
                Selectors.pfSelectors("pfNames", List.of(entries)), List.of(), List.of(), Optional.empty());
    }

    @Test
    void withoutSelectorsEveryDeviceIsInThePoolWithoutTheLayer() {
        assertThat(PoolDevices.all().of(host)).isEqualTo(NodeDevice.of(host));
    }

    @Test
    void pfNamesWithVfIndexesSelectThoseVfsAsForADevicePluginPool() {
        String pf = host.pciFunction(io.rdmanode.discovery.PciAddress.parse("0000:3b:00.0").orElseThrow())
                .orElseThrow().netDevices().get(0);
        PoolDevices pool = new PoolDevices(pfNames(pf + "#0-1"), () -> Optional.of(LAYER));
        assertThat(pool.of(host).keySet()).containsExactly("pci-0000-3b-00-2", "pci-0000-3b-00-3");
    }

    @Test
    void selectorsWithoutTheLayerAreAnErrorNamingIt() {
        PoolDevices pool = new PoolDevices(pfNames("ens1f0#0"), Optional::empty);
        assertThatThrownBy(() -> pool.of(host)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("device-plugin layer");
    }
}
