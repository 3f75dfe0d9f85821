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

    /** Two pools on the recorded host: the VFs of PF ens1f0 and those of PF ens2f0. */
    static List<PoolDevices.Pool> twoPools(String first, String second) {
        return List.of(new PoolDevices.Pool("vfs-a", pfNames(first)), new PoolDevices.Pool("vfs-b", pfNames(second)));
    }

    private static String pfOf(NodeDevice d) {
        return d.function().physicalFunction().map(Object::toString).orElse("none");
    }

    @Test
    void twoPoolsDivideTheVfsOfTheTwoPfsEachDeviceInOnePool() {
        PoolDevices pools = new PoolDevices(twoPools("ens1f0#0-7", "ens2f0#0-7"), () -> Optional.of(LAYER));
        var byPool = pools.byPool(host);

        assertThat(byPool.keySet()).containsExactly("vfs-a", "vfs-b");
        assertThat(byPool.get("vfs-a")).hasSize(8).containsKey("pci-0000-3b-00-2");
        assertThat(byPool.get("vfs-a").values()).extracting(PoolDevicesTest::pfOf).containsOnly("0000:3b:00.0");
        assertThat(byPool.get("vfs-b")).hasSize(8).doesNotContainKeys(byPool.get("vfs-a").keySet().toArray(String[]::new));
        assertThat(byPool.get("vfs-b").values()).extracting(PoolDevicesTest::pfOf).doesNotContain("0000:3b:00.0", "none");
        assertThat(pools.overlaps(host)).isEmpty();
        assertThat(pools.of(host)).hasSize(16);
    }

    @Test
    void aDeviceTwoPoolsSelectIsInTheFirstAndTheOverlapIsReported() {
        PoolDevices pools = new PoolDevices(twoPools("ens1f0#0-1", "ens1f0#0-3"), () -> Optional.of(LAYER));
        var byPool = pools.byPool(host);

        assertThat(byPool.get("vfs-a").keySet()).containsExactly("pci-0000-3b-00-2", "pci-0000-3b-00-3");
        assertThat(byPool.get("vfs-b").keySet()).containsExactly("pci-0000-3b-00-4", "pci-0000-3b-00-5");
        assertThat(pools.overlaps(host)).containsExactly(
                java.util.Map.entry("vfs-b", List.of("pci-0000-3b-00-2", "pci-0000-3b-00-3")));
    }

    @Test
    void aLastPoolWithoutSelectorsTakesEveryDeviceTheEarlierPoolsLeft() {
        PoolDevices pools = new PoolDevices(List.of(new PoolDevices.Pool("vfs-a", pfNames("ens1f0#0-7")),
                new PoolDevices.Pool("rest", Selectors.NONE)), () -> Optional.of(LAYER));
        var byPool = pools.byPool(host);

        assertThat(byPool.get("rest")).hasSize(NodeDevice.of(host).size() - 8)
                .containsKey("pci-0000-3b-00-0").doesNotContainKey("pci-0000-3b-00-2");
        assertThat(pools.overlaps(host)).isEmpty();
    }
}
