// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.cni.PodAttachment;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.health.HealthStatus;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePluginHost;
import io.rdmanode.kubelet.testing.KubeletTestbed;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The pool component with its configuration as SCR hands it over, against the real device-plugin host and
 * the kubelet double: every selector kind on the recorded ConnectX-5, VF ranges and first match wins by list
 * position on the generated 8 PF x 128 VF host, refused configurations.
 */
class SriovPoolDevicePluginTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;
    private KubeletTestbed kubelet;
    private DevicePluginHost host;
    private SriovPoolRegistry registry;

    private void start(SriovHost discovery) throws IOException {
        kubelet = KubeletTestbed.start(dir);
        host = kubelet.host();
        registry = new SriovPoolRegistry(discovery, discovery.layer(), dir.resolve("state"));
    }

    @AfterEach
    void stop() {
        if (registry != null) {
            registry.stop();
            kubelet.close();
        }
    }

    private SriovPoolDevicePlugin activate(int index, String name, Object... keyValues) {
        Object[] all = Stream.concat(Stream.of(keyValues), Stream.of("deviceInfoDir", dir.resolve("devinfo").toString()))
                .toArray();
        return new SriovPoolDevicePlugin(Pools.config(name, all), Map.of(".index", index), host, registry);
    }

    private List<String> ids(String resource, int count) {
        return ids(resource, count, WAIT);
    }

    private List<String> ids(String resource, int count, Duration wait) {
        kubelet.awaitRegistrations(resource, 1, wait);
        List<Device> r = kubelet.plugin(resource).awaitDevices(u -> u.size() == count, wait);
        return r.stream().map(Device::id).toList();
    }

    static Stream<Arguments> selectors() {
        return Stream.of(
                Arguments.of("selectors.vendors", new String[] {"0x15B3"}, 16, "0000:3b:00.2"),
                Arguments.of("selectors.devices", new String[] {"1018"}, 16, "0000:3b:00.2"),
                Arguments.of("selectors.drivers", new String[] {"mlx5_core"}, 16, "0000:3b:00.2"),
                Arguments.of("selectors.pciAddresses", new String[] {"0000:86:00.4", "0000:3b:00.3"}, 2, "0000:3b:00.3"),
                Arguments.of("selectors.pfNames", new String[] {"ens2f0"}, 8, "0000:86:00.2"),
                Arguments.of("selectors.pfNames", new String[] {"ENS1F0#1-2,7"}, 3, "0000:3b:00.3"),
                Arguments.of("selectors.rootDevices", new String[] {"0000:86:00.0#6"}, 1, "0000:86:01.0"),
                Arguments.of("selectors.linkTypes", new String[] {"ether"}, 16, "0000:3b:00.2"),
                Arguments.of("selectors.isRdma", true, 16, "0000:3b:00.2"));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("selectors")
    void everySelectorKindPicksItsVfs(String key, Object value, int count, String firstId) throws IOException {
        start(SriovHost.recorded(dir.resolve("host")));
        activate(0, "sel", key, value);

        assertThat(ids("rdma/sel", count).get(0)).isEqualTo(firstId);
    }

    @Test
    void aVfThatNoSelectorTakesSaysWhichExcludedIt() throws IOException {
        start(SriovHost.recorded(dir.resolve("host")));
        activate(0, "ib", "selectors.linkTypes", new String[] {"infiniband"});
        activate(1, "pf1", "selectors.rootDevices", new String[] {"0000:86:00.0#0-3"});
        ids("rdma/pf1", 4);

        @SuppressWarnings("unchecked")
        Map<String, String> vfs = (Map<String, String>) ((Map<String, Object>) registry.status()).get("vfs");
        assertThat(vfs).hasSize(16).containsEntry("0000:86:00.2", "pool pf1");
        assertThat(vfs.get("0000:3b:00.2")).isEqualTo("no pool: ib: link layers [ethernet] not in linkTypes"
                + " [infiniband]; pf1: PF 0000:3b:00.0 VF 0 not in rootDevices [0000:86:00.0#0-3]");
    }

    /**
     * Exclusive netns mode: the CNI plugin moved VF 0000:3b:00.2's RDMA device into a pod. The pool keeps the VF
     * (the ledger) and /status names the pod the CNI plugin's state says, with the pool that serves the VF.
     */
    @Test
    @SuppressWarnings("unchecked")
    void theCniPluginsPlacementsNameThePodOfEachVf() throws IOException {
        SriovHost sriov = SriovHost.recorded(dir.resolve("host"));
        sriov.netnsMode(NetnsMode.Mode.EXCLUSIVE);
        start(sriov);
        activate(0, "rdma_vfs", "selectors.isRdma", true);
        ids("rdma/rdma_vfs", 16);
        sriov.moveRdmaToPod("0000:3b:00.2", "mlx5_1");
        sriov.rescan();
        registry.placements = new CniPlacements(() -> List.of(new PodAttachment("sriov-rdma", "c1", "net1",
                "/var/run/netns/cni-1", "team-a", "trainer-0", "0000:3b:00.2", "mlx5_1", Instant.EPOCH)));

        Map<String, Object> status = (Map<String, Object>) registry.status();

        assertThat((Map<String, String>) status.get("vfs")).containsEntry("0000:3b:00.2",
                "pool rdma_vfs (RDMA device mlx5_1 in a pod netns), in pod team-a/trainer-0")
                .containsEntry("0000:3b:00.3", "pool rdma_vfs");
        assertThat((List<Map<String, Object>>) status.get("placements")).singleElement().satisfies(p -> assertThat(p)
                .containsEntry("pod", "team-a/trainer-0").containsEntry("vf", "0000:3b:00.2")
                .containsEntry("rdmaDevice", "mlx5_1").containsEntry("pool", "rdma_vfs")
                .containsEntry("netns", "/var/run/netns/cni-1"));
        assertThat(ids("rdma/rdma_vfs", 16)).contains("0000:3b:00.2");

        registry.placements = null;                     // the CNI bundle stopped
        assertThat((Map<String, Object>) registry.status()).doesNotContainKey("placements");
    }

    @Test
    void vfRangesAndListOrderSplitThe1024VfHost() throws IOException {
        // sysfs lives in memory: the 100,000-file host on tmpfs when there is one (a disk takes a minute).
        Path shm = Path.of("/dev/shm");
        Path tree = Files.isDirectory(shm) ? Files.createTempDirectory(shm, "sriov-1024-") : dir.resolve("host");
        try {
            // Scanning and listing 1,024 VFs twice (one pool, then two): 5 s here alone, 13.7 s once in a full
            // run of the suite on JDK 25, past the 10 s the small hosts get.
            vfRangesAndListOrderSplit(SriovHost.generated(tree, 8, 128), Duration.ofSeconds(60));
        } finally {
            if (!tree.startsWith(dir)) {
                try (Stream<Path> all = Files.walk(tree)) {
                    for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.delete(p);
                    }
                }
            }
        }
    }

    private void vfRangesAndListOrderSplit(SriovHost generated, Duration wait) throws IOException {
        start(generated);
        // Declared later in the list but activated first: the list position decides, not activation order.
        activate(1, "rest", "selectors.isRdma", true);
        activate(0, "pf3_low", "selectors.pfNames", new String[] {"ens3f0#0-31", "ens3f0#100"});

        List<String> low = ids("rdma/pf3_low", 33, wait);
        List<String> rest = ids("rdma/rest", 1024 - 33, wait);

        assertThat(low).allMatch(id -> id.startsWith("0000:42:"));
        assertThat(rest).doesNotContainAnyElementsOf(low);
        assertThat(kubelet.plugin("rdma/rest").latestWireSize(wait)).isLessThan(64 * 1024);
    }

    @Test
    void refusesBadSelectorsAndATakenResourceNameAndSaysSoInReadiness() throws IOException {
        start(SriovHost.recorded(dir.resolve("host")));
        activate(0, "bad_range", "selectors.pfNames", new String[] {"ens1f0#3-1"});
        activate(1, "none");
        activate(2, "a", "selectors.isRdma", true);
        activate(3, "b", "resourceName", "a", "selectors.isRdma", true);

        HealthStatus health = registry.check();
        assertThat(health.ok()).isFalse();
        assertThat(health.message()).contains("bad_range=pfNames: 'ens1f0#3-1': VF range 3-1 must be ascending")
                .contains("none=pool none has no selectors").contains("b=resource rdma/a is already served");
        assertThat(ids("rdma/a", 16)).hasSize(16);
    }

    @Test
    void theCdiKeysOfAPoolConfigurationTurnOnItsSpec() throws IOException {
        start(SriovHost.recorded(dir.resolve("host")));
        Path cdiDir = dir.resolve("cdi");
        SriovPoolDevicePlugin p = activate(0, "cdi_a", "selectors.pfNames", new String[] {"ens2f0#0"}, "cdi", true,
                "cdiSpecDir", cdiDir.toString());
        assertThat(ids("rdma/cdi_a", 1)).containsExactly("0000:86:00.2");

        assertThat(kubelet.plugin("rdma/cdi_a").allocate("rdma/cdi_a", List.of("0000:86:00.2")).get(0).cdiDevices())
                .containsExactly("rdmanode.io/vf=0000:86:00.2");
        assertThat(cdiDir.resolve("rdmanode.io-vf_cdi_a.json")).exists();
        p.stop(6);                                         // DEACTIVATION_REASON_BUNDLE_STOPPED
        assertThat(cdiDir.resolve("rdmanode.io-vf_cdi_a.json")).as("a pool that stops leaves its spec").exists();
    }
}
