// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.deviceplugin.ServedPool;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePluginException;
import io.rdmanode.kubelet.testing.KubeletTestbed;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pool component against the real device-plugin host and the kubelet double, on a recorded host. */
class SharedPoolDevicePluginTest {

    private static final Duration WAIT = Duration.ofSeconds(5);
    /** {@code ComponentConstants.DEACTIVATION_REASON_BUNDLE_STOPPED}. */
    static final int BUNDLE_STOPPED = 6;

    @TempDir
    Path dir;
    private RecordedHostDiscovery discovery;
    private KubeletTestbed kubelet;
    private final DevicePluginLayer layer = io.rdmanode.deviceplugin.testing.DevicePluginTesting.layer(
            new LayerSettings(new DevicePaths(Path.of("/node/dev")), List.of()));
    private final SharedPoolRegistry registry = new SharedPoolRegistry(layer);

    @BeforeEach
    void start() throws IOException {
        discovery = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir.resolve("host"));
        kubelet = KubeletTestbed.start(dir);
    }

    @AfterEach
    void stop() {
        kubelet.close();
    }

    private SharedPoolDevicePlugin activate(String name, Object... keyValues) {
        return new SharedPoolDevicePlugin(Pools.config(name, keyValues), discovery, kubelet.host(), layer, registry,
                dir.resolve("node"));
    }

    @Test
    void registersThePoolAndAdvertisesItsIdsWithTopology() {
        activate("hca_a", "rdmaHcaMax", 3, "selectors.deviceIDs", new String[] {"1017"});

        String endpoint = kubelet.awaitRegistrations("rdma/hca_a", 1, WAIT);
        List<Device> list = kubelet.plugin("rdma/hca_a").latest(WAIT);

        assertThat(endpoint).matches("rdma-node-agent\\.rdma_hca_a\\.[0-9a-z]{1,8}\\.sock");
        assertThat(list).extracting(Device::id).containsExactly("hca_a-0", "hca_a-1", "hca_a-2");
        assertThat(list).allSatisfy(d -> assertThat(d.healthy()).isTrue());
        // One NUMA node per ID, so kubelet's PodResources lists each ID once.
        assertThat(list).extracting(Device::numaNodes).containsExactly(List.of(0L), List.of(1L), List.of(0L));
    }

    @Test
    void allocatesTheCharacterDevicesOverTheSocketAndRefusesUnknownIds() {
        activate("hca_a", "rdmaHcaMax", 3, "selectors.ifNames", new String[] {"ens2f0"});
        kubelet.awaitRegistrations("rdma/hca_a", 1, WAIT);

        List<ContainerAllocation> response = kubelet.plugin("rdma/hca_a").allocate("rdma/hca_a", List.of("hca_a-1"));

        // Host paths under the layer's hostDevRoot (/node/dev), container paths /dev/...; never where the agent
        // read the devices (<dir>/host/dev).
        assertThat(response.get(0).devices())
                .extracting(d -> d.hostPath(), d -> d.containerPath(), d -> d.permissions())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("/node/dev/infiniband/uverbs20", "/dev/infiniband/uverbs20", "rw"),
                        org.assertj.core.groups.Tuple.tuple("/node/dev/infiniband/umad20", "/dev/infiniband/umad20", "rw"),
                        org.assertj.core.groups.Tuple.tuple("/node/dev/infiniband/issm20", "/dev/infiniband/issm20", "rw"),
                        org.assertj.core.groups.Tuple.tuple("/node/dev/infiniband/rdma_cm", "/dev/infiniband/rdma_cm", "rw"));
        assertThatThrownBy(() -> kubelet.plugin("rdma/hca_a").allocate("rdma/hca_a", List.of("hca_a-1", "hca_a-7")))
                .isInstanceOfSatisfying(DevicePluginException.class, e -> {
                    assertThat(e.code()).isEqualTo(DevicePluginException.Code.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).contains("'hca_a-7'").contains("rdma/hca_a");
                });
    }

    /**
     * One owner per device with a DRA claim (issue 24): an HCA held outside the pools goes to no new container of
     * the shared pool (all of them held: the pool is unhealthy and says why), and while a container holds one of
     * the pool's IDs, none of its HCAs can be held outside (each container has every HCA of the pool).
     */
    @Test
    void anHcaHeldOutsideGoesToNoNewContainerAndAnHcaInUseCannotBeHeldOutside() {
        activate("hca_a", "rdmaHcaMax", 3, "selectors.ifNames", new String[] {"ens1f0", "ens2f0"});
        kubelet.awaitRegistrations("rdma/hca_a", 1, WAIT);
        String pf1 = pciOf("ens1f0");
        String pf2 = pciOf("ens2f0");

        try (DevicePluginLayer.OutsideHolder dra = layer.outsideHolder("DRA driver test")) {
            assertThat(dra.hold(List.of(pf1, pf2))).isEmpty();               // no container uses the pool yet
            kubelet.plugin("rdma/hca_a").awaitDevices(u -> u.stream().noneMatch(Device::healthy), WAIT);
            assertThat(registry.status().toString()).contains("every HCA it matches is held outside")
                    .contains("DRA driver test");

            dra.release(List.of(pf1));
            kubelet.plugin("rdma/hca_a").awaitDevices(u -> u.stream().allMatch(Device::healthy), WAIT);
            List<String> given = kubelet.plugin("rdma/hca_a").allocate("rdma/hca_a", List.of("hca_a-0")).get(0)
                    .devices().stream().map(d -> d.hostPath()).toList();
            assertThat(given).contains("/node/dev/infiniband/uverbs" + uverbsOf("ens1f0"))
                    .doesNotContain("/node/dev/infiniband/uverbs" + uverbsOf("ens2f0"));

            // hca_a-0 is held by a container now, and with it every HCA the pool gives.
            assertThat(dra.hold(List.of(pf1))).hasEntrySatisfying(pf1, by -> assertThat(by).contains("rdma/hca_a"));
            dra.release(List.of(pf2));
        }
    }

    private io.rdmanode.deviceplugin.CandidateDevice candidateOf(String ifName) {
        return layer.candidates(discovery.snapshot(), io.rdmanode.deviceplugin.Granularity.HCA).stream()
                .filter(c -> c.netdevs().stream().anyMatch(n -> n.name().equals(ifName))).findFirst().orElseThrow();
    }

    private String pciOf(String ifName) {
        return io.rdmanode.deviceplugin.Ownership.deviceId(candidateOf(ifName));
    }

    /** The uverbs number of the HCA with netdev {@code ifName}, from its device files. */
    private String uverbsOf(String ifName) {
        return candidateOf(ifName).deviceFiles().stream().map(f -> f.agentPath().getFileName().toString())
                .filter(n -> n.startsWith("uverbs")).findFirst().orElseThrow().substring("uverbs".length());
    }

    @Test
    void pushesAPortGoingDownAndUpToListAndWatch() {
        activate("pf0", "rdmaHcaMax", 2, "selectors.ifNames", new String[] {"ens1f0"});
        kubelet.awaitRegistrations("rdma/pf0", 1, WAIT);
        kubelet.plugin("rdma/pf0").awaitDevices(u -> u.get(0).healthy(), WAIT);

        discovery.portState("mlx5_0", 1, "1: DOWN");
        discovery.rescan();
        kubelet.plugin("rdma/pf0").awaitDevices(u -> u.stream().noneMatch(Device::healthy), WAIT);
        assertThat(registry.status().toString()).contains("no usable HCA").contains("mlx5_0");

        discovery.portState("mlx5_0", 1, "4: ACTIVE");
        discovery.rescan();
        kubelet.plugin("rdma/pf0").awaitDevices(u -> u.stream().allMatch(Device::healthy), WAIT);
        assertThat(kubelet.plugin("rdma/pf0").updates()).isEqualTo(3);
    }

    @Test
    void advertisesUnhealthyWithAReasonInExclusiveNetnsMode() {
        discovery.netnsMode(NetnsMode.Mode.EXCLUSIVE);
        discovery.rescan();
        activate("hca_a", "rdmaHcaMax", 2, "selectors.vendors", new String[] {"15b3"});
        kubelet.awaitRegistrations("rdma/hca_a", 1, WAIT);

        assertThat(kubelet.plugin("rdma/hca_a").latest(WAIT)).allSatisfy(d -> assertThat(d.healthy()).isFalse());
        assertThat(registry.status().toString()).contains("exclusive");
    }

    @Test
    void reloadsPoolsLiveAddingChangingAndRemovingTheirServers() {
        SharedPoolDevicePlugin a = activate("hca_a", "rdmaHcaMax", 2, "selectors.deviceIDs", new String[] {"1017"});
        SharedPoolDevicePlugin b = activate("hca_b", "rdmaHcaMax", 2, "selectors.ifNames", new String[] {"ens1f0v0"});
        kubelet.awaitRegistrations("rdma/hca_a", 1, WAIT);
        kubelet.awaitRegistrations("rdma/hca_b", 1, WAIT);
        assertThat(poolNames()).containsExactly("hca_a", "hca_b");

        // Changed pool: SCR deactivates the old component and activates one with the new configuration.
        KubeletTestbed.Plugin oldA = kubelet.plugin("rdma/hca_a");
        a.stop(ServedPool.CONFIGURATION_MODIFIED);
        a = activate("hca_a", "rdmaHcaMax", 5, "selectors.deviceIDs", new String[] {"1017"});
        kubelet.awaitRegistrations("rdma/hca_a", 2, WAIT);
        assertThat(kubelet.plugin("rdma/hca_a").latest(WAIT)).hasSize(5);
        assertThat(oldA.streamEnded()).isTrue();

        // Removed pool: its stream ends and its socket goes.
        KubeletTestbed.Plugin oldB = kubelet.plugin("rdma/hca_b");
        Path socketB = kubelet.pluginSocket("rdma/hca_b");
        assertThat(socketB).exists();
        b.stop(ServedPool.CONFIGURATION_DELETED);
        assertThat(socketB).doesNotExist();
        org.awaitility.Awaitility.await().atMost(WAIT).until(oldB::streamEnded);

        // Added pool.
        activate("hca_c", "resourceName", "shared_c", "rdmaHcaMax", 1, "selectors.vendors", new String[] {"15b3"});
        kubelet.awaitRegistrations("rdma/shared_c", 1, WAIT);
        assertThat(poolNames()).containsExactly("hca_a", "hca_c");
        assertThat(discovery.listenerCount()).isEqualTo(2);
        a.stop(BUNDLE_STOPPED);
    }

    @Test
    void reRegistersItsPoolsAfterKubeletRestarts() {
        activate("hca_a", "rdmaHcaMax", 2, "selectors.deviceIDs", new String[] {"1017"});
        activate("hca_b", "rdmaHcaMax", 2, "selectors.ifNames", new String[] {"ens1f0v0"});
        // Both first: pools register in parallel, and one still registering when kubelet restarts registers once,
        // with the new kubelet, which is right but would throw the count off by one.
        kubelet.awaitRegistrations("rdma/hca_a", 1, WAIT);
        kubelet.awaitRegistrations("rdma/hca_b", 1, WAIT);

        for (int i = 2; i <= 4; i++) {
            kubelet.restartKubelet();
            kubelet.awaitRegistrations("rdma/hca_a", i, WAIT);
            kubelet.awaitRegistrations("rdma/hca_b", i, WAIT);
        }
        assertThat(kubelet.plugin("rdma/hca_b").latest(WAIT)).hasSize(2);
    }

    @Test
    void stoppingReleasesSocketListenerAndStatus() {
        SharedPoolDevicePlugin a = activate("hca_a", "selectors.vendors", new String[] {"15b3"});
        kubelet.awaitRegistrations("rdma/hca_a", 1, WAIT);
        Path socketA = kubelet.pluginSocket("rdma/hca_a");

        a.stop(BUNDLE_STOPPED);

        assertThat(discovery.listenerCount()).isZero();
        assertThat(poolNames()).isEmpty();
        assertThat(kubelet.host().figures()).isEmpty();
        assertThat(socketA).doesNotExist();
    }

    @Test
    void refusesASecondPoolWithTheSameResourceNameAndSaysSoInReadiness() {
        activate("hca_a", "selectors.vendors", new String[] {"15b3"});

        SharedPoolDevicePlugin other = activate("other", "resourceName", "hca_a", "selectors.vendors",
                new String[] {"15b3"});

        assertThat(other.pool()).isEmpty();
        assertThat(poolNames()).containsExactly("hca_a", "other");
        assertThat(registry.status().toString()).contains("refused=resource rdma/hca_a is already served");
        assertThat(registry.check().ok()).isFalse();
        assertThat(registry.check().message()).contains("other");
        assertThat(discovery.listenerCount()).isEqualTo(1);
        other.stop(ServedPool.CONFIGURATION_DELETED);
        assertThat(registry.check().ok()).isTrue();
    }

    @Test
    void refusesAPoolWhoseResourceNameKubeletWouldReject() {
        SharedPoolDevicePlugin bad = activate("bad", "resourceName", "bad name", "selectors.vendors",
                new String[] {"15b3"});

        assertThat(bad.pool()).isEmpty();
        assertThat(registry.check().message()).contains("resourceName 'bad name'");
        assertThat(kubelet.host().figures()).isEmpty();
    }

    @Test
    void aCdiPoolSaysInStatusWhatTheRuntimeNeedsAndWhatWasFoundOnTheNode() throws IOException {
        Path containerd = Files.createDirectories(dir.resolve("node/etc/containerd")).resolve("config.toml");
        Files.writeString(containerd, "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n");
        activate("hca_a", "selectors.vendors", new String[] {"15b3"}, "cdi", true, "cdiSpecDir",
                dir.resolve("cdi").toString());
        kubelet.awaitRegistrations("rdma/hca_a", 1, WAIT);

        assertThat(registry.status().toString()).contains("containerd >= 1.7", "CRI-O >= 1.23", "detected=disabled",
                "does not set enable_cdi");
        List<ContainerAllocation> a = kubelet.plugin("rdma/hca_a").allocate("rdma/hca_a", List.of("hca_a-0"));
        assertThat(a.get(0).cdiDevices()).containsExactly("rdmanode.io/hca=hca_a");
        assertThat(dir.resolve("cdi/rdmanode.io-hca_hca_a.json")).exists();
    }

    /**
     * A CDI spec that cannot be written (a read-only or full spec directory): the pool answers Allocate UNAVAILABLE,
     * and readiness says so. /readyz said "1 pool(s) serving"; only /status had it (operator probe).
     */
    @Test
    void aCdiSpecThatCannotBeWrittenFailsReadiness() throws IOException {
        Files.writeString(dir.resolve("cdi"), "a file where the spec directory should be");
        activate("hca_a", "selectors.vendors", new String[] {"15b3"}, "cdi", true, "cdiSpecDir",
                dir.resolve("cdi").toString());
        kubelet.awaitRegistrations("rdma/hca_a", 1, WAIT);

        assertThat(registry.check().ok()).isFalse();
        assertThat(registry.check().message()).startsWith("pool hca_a: cannot write CDI spec "
                + dir.resolve("cdi/rdmanode.io-hca_hca_a.json"));
    }

    @Test
    void showsMatchedExcludedUnusableAndAllocationsInStatus() {
        activate("pf0", "selectors.ifNames", new String[] {"ens1f0", "ens1f0v7"});
        kubelet.awaitRegistrations("rdma/pf0", 1, WAIT);
        kubelet.plugin("rdma/pf0").allocate("rdma/pf0", List.of("pf0-2"));

        String status = registry.status().toString();
        assertThat(status).contains("matched=[mlx5_0, mlx5_8]", "unusable={mlx5_8=no port ACTIVE",
                "leftOutOfAllocate=[mlx5_8]", "allocations={count=1, failures=0, last=[pf0-2]}",
                "mlx5_9=netdevs [ens2f0] not in ifNames [ens1f0, ens1f0v7]");
    }

    @SuppressWarnings("unchecked")
    private List<Object> poolNames() {
        Map<String, Object> status = (Map<String, Object>) registry.status();
        return ((List<Map<String, Object>>) status.get("pools")).stream().map(p -> p.get("name")).toList();
    }
}
