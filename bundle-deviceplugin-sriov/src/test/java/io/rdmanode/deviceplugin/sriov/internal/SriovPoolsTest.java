// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.deviceplugin.sriov.internal.PreferredAllocator.Policy;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePluginException;
import io.rdmanode.kubelet.DevicePluginHost;
import io.rdmanode.kubelet.testing.KubeletTestbed;
import io.rdmanode.kubelet.testing.PodDevicesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SR-IOV pools on the recorded ConnectX-5 host, served by the real device-plugin host to the kubelet double. */
class SriovPoolsTest {

    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final VfMatcher RDMA = (vf, h) -> vf.rdmaDevices().isEmpty() ? Optional.of("no RDMA device")
            : Optional.empty();

    @TempDir
    Path dir;
    private SriovHost host;
    private KubeletTestbed kubelet;
    private DevicePluginHost pluginHost;
    private SriovPools pools;
    private PodDevicesClient podDevices;

    @BeforeEach
    void start() throws IOException {
        host = SriovHost.recorded(dir.resolve("host"));
        kubelet = KubeletTestbed.start(dir);
        kubelet.servePodResources(dir.resolve("pr.sock"));
        podDevices = kubelet.podDevices();
        pluginHost = kubelet.host();
        pools = agent();
    }

    private io.rdmanode.deviceplugin.DevicePluginLayer layer;

    /** The SR-IOV pools of an agent (starting again: the same state directory). */
    private SriovPools agent() {
        layer = host.layer(dir.resolve("state/allocations"), podDevices);
        return new SriovPools(host, layer, new RdmaVfLedger(dir.resolve("state/rdma-vfs")));
    }

    /** The agent stops: its pools, then its layer (no ledger write after this). */
    private void stopAgent() {
        pools.close();
        io.rdmanode.deviceplugin.testing.DevicePluginTesting.close(layer);
    }

    @AfterEach
    void stop() {
        stopAgent();
        podDevices.close();
        kubelet.close();
    }

    private SriovPools.Handle pool(String name, int order, VfMatcher matcher) {
        return pools.add(new SriovPoolSettings(name, order, "rdma", name, Policy.SPREAD, false,
                dir.resolve("devinfo")), matcher, pluginHost);
    }

    private static VfMatcher pf(String pf) {
        return (vf, h) -> vf.pf().toString().equals(pf) ? Optional.empty() : Optional.of("PF " + vf.pf());
    }

    private List<Device> awaitIds(String resource, int count) {
        return kubelet.plugin(resource).awaitDevices(u -> u.size() == count, WAIT);
    }

    @Test
    void advertisesOneIdPerVfWithItsNumaNodeAndTheFirstPoolWins() {
        pool("pf0", 0, pf("0000:3b:00.0"));
        pool("all", 1, RDMA);
        kubelet.awaitRegistrations("rdma/pf0", 1, WAIT);
        kubelet.awaitRegistrations("rdma/all", 1, WAIT);

        List<Device> pf0 = awaitIds("rdma/pf0", 8);
        List<Device> all = awaitIds("rdma/all", 8);

        assertThat(kubelet.plugin("rdma/pf0").preferredAllocationAvailable()).isTrue();
        assertThat(pf0.get(0).id()).isEqualTo("0000:3b:00.2");
        assertThat(pf0.get(0).numaNodes().get(0)).isZero();
        assertThat(pf0.get(7).healthy()).isFalse();                                 // ens1f0v7 is down
        assertThat(all).allSatisfy(d -> {
            assertThat(d.id()).startsWith("0000:86:");
            assertThat(d.numaNodes().get(0)).isEqualTo(1L);
        });
        assertThat(pools.vfStatus()).containsEntry("0000:86:00.2", "pool all");
    }

    @Test
    void allocatesTheVfsRdmaNodesEnvAndDeviceInfoAndAgainForTheNextContainer() throws IOException {
        pool("pf1", 0, pf("0000:86:00.0"));
        kubelet.awaitRegistrations("rdma/pf1", 1, WAIT);

        List<ContainerAllocation> first = kubelet.plugin("rdma/pf1").allocate("rdma/pf1", List.of("0000:86:00.2"));
        List<ContainerAllocation> again = kubelet.plugin("rdma/pf1").allocate("rdma/pf1", List.of("0000:86:00.2"));

        ContainerAllocation c = first.get(0);
        Path dev = host.devRoot();
        assertThat(c.devices()).extracting(d -> d.containerPath(), d -> d.hostPath())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("/dev/infiniband/uverbs21", dev + "/infiniband/uverbs21"),
                        org.assertj.core.groups.Tuple.tuple("/dev/infiniband/umad21", dev + "/infiniband/umad21"),
                        org.assertj.core.groups.Tuple.tuple("/dev/infiniband/issm21", dev + "/infiniband/issm21"),
                        org.assertj.core.groups.Tuple.tuple("/dev/infiniband/rdma_cm", dev + "/infiniband/rdma_cm"));
        assertThat(c.envs()).containsEntry("PCIDEVICE_RDMA_PF1", "0000:86:00.2");
        assertThat(c.envs().get("PCIDEVICE_RDMA_PF1_INFO")).contains("\"rdma_dev\":\"mlx5_10\"");
        assertThat(Files.readString(dir.resolve("devinfo/rdma-pf1-0000:86:00.2-device.json")))
                .contains("\"pci-address\":\"0000:86:00.2\"").contains("\"pf-pci-address\":\"0000:86:00.0\"")
                .contains("\"rdma-device\":\"mlx5_10\"");
        assertThat(again).isEqualTo(first);
    }

    @Test
    void refusesUnknownIdsWithTheirNames() {
        pool("pf1", 0, pf("0000:86:00.0"));
        kubelet.awaitRegistrations("rdma/pf1", 1, WAIT);

        assertThatThrownBy(() -> kubelet.plugin("rdma/pf1").allocate("rdma/pf1", List.of("0000:86:00.2", "0000:3b:00.2")))
                .isInstanceOfSatisfying(DevicePluginException.class, e -> {
                    assertThat(e.code()).isEqualTo(DevicePluginException.Code.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).contains("'0000:3b:00.2'").contains("rdma/pf1")
                            .doesNotContain("'0000:86:00.2'");
                });
        assertThatThrownBy(() -> kubelet.plugin("rdma/pf1").allocate("rdma/pf1", List.of("mlx5_3")))
                .isInstanceOfSatisfying(DevicePluginException.class, e ->
                        assertThat(e.code()).isEqualTo(DevicePluginException.Code.INVALID_ARGUMENT));
        assertThatThrownBy(() -> kubelet.plugin("rdma/pf1").allocate("rdma/pf1", List.of()))
                .isInstanceOfSatisfying(DevicePluginException.class, e -> {
                    assertThat(e.code()).isEqualTo(DevicePluginException.Code.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).contains("no device id");
                });
    }

    @Test
    void refusesAnUnhealthyVfWithTheReason() {
        pool("pf0", 0, pf("0000:3b:00.0"));
        kubelet.awaitRegistrations("rdma/pf0", 1, WAIT);

        assertThatThrownBy(() -> kubelet.plugin("rdma/pf0").allocate("rdma/pf0", List.of("0000:3b:01.1")))
                .isInstanceOfSatisfying(DevicePluginException.class, e -> {
                    assertThat(e.code()).isEqualTo(DevicePluginException.Code.UNAVAILABLE);
                    assertThat(e.getMessage()).contains("0000:3b:01.1").contains("mlx5_8");
                });
    }

    @Test
    void prefersTheSmallestNumaNodeThatFitsTheRequest() {
        pool("all", 0, RDMA);
        kubelet.awaitRegistrations("rdma/all", 1, WAIT);
        List<String> available = List.of("0000:3b:00.2", "0000:3b:00.3", "0000:86:00.2", "0000:86:00.3",
                "0000:86:00.4");

        List<String> three = kubelet.plugin("rdma/all").preferred("rdma/all", available, List.of(), 3);
        List<String> two = kubelet.plugin("rdma/all").preferred("rdma/all", available, List.of(), 2);

        assertThat(three).containsExactly("0000:86:00.2", "0000:86:00.3", "0000:86:00.4");     // only NUMA 1 fits
        assertThat(two).containsExactly("0000:3b:00.2", "0000:3b:00.3");     // best fit: NUMA 0 has exactly two
    }

    @Test
    void followsAVfCountChangeWithoutRestart() throws IOException {
        pool("pf0", 0, pf("0000:3b:00.0"));
        kubelet.awaitRegistrations("rdma/pf0", 1, WAIT);
        awaitIds("rdma/pf0", 8);
        kubelet.plugin("rdma/pf0").allocate("rdma/pf0", List.of("0000:3b:00.6"));
        Path info = dir.resolve("devinfo/rdma-pf0-0000:3b:00.6-device.json");
        assertThat(info).exists();

        host.numVfs("0000:3b:00.0", 4);
        host.rescan();
        List<Device> fewer = awaitIds("rdma/pf0", 4);

        assertThat(fewer).extracting(Device::id).containsExactly("0000:3b:00.2",
                "0000:3b:00.3", "0000:3b:00.4", "0000:3b:00.5");
        assertThat(info).doesNotExist();
        host.numVfs("0000:3b:00.0", 8);
        host.rescan();
        awaitIds("rdma/pf0", 8);
        assertThat(kubelet.registrations("rdma/pf0")).isEqualTo(1);
    }

    @Test
    void reportsAPfLinkGoingDownAndUp() {
        pool("pf1", 0, pf("0000:86:00.0"));
        kubelet.awaitRegistrations("rdma/pf1", 1, WAIT);

        host.portState("mlx5_9", 1, "1: DOWN");
        host.rescan();
        kubelet.plugin("rdma/pf1").awaitDevices(u -> u.stream().noneMatch(Device::healthy), WAIT);
        assertThat(pools.vfStatus().get("0000:86:00.2")).contains("PF 0000:86:00.0 link down");

        host.portState("mlx5_9", 1, "4: ACTIVE");
        host.rescan();
        kubelet.plugin("rdma/pf1").awaitDevices(u -> u.stream()     // all but VF 7 (down itself)
                .filter(Device::healthy).count() == 7, WAIT);
        assertThat(kubelet.plugin("rdma/pf1").updates()).isEqualTo(3);
    }

    @Test
    void keepsVfsWhoseRdmaDeviceIsInAPodAcrossARestart() throws IOException {
        host.netnsMode(NetnsMode.Mode.EXCLUSIVE);
        host.rescan();
        VfMatcher isRdma = RDMA;
        pool("pf1", 0, (vf, h) -> pf("0000:86:00.0").exclusion(vf, h).or(() -> isRdma.exclusion(vf, h)));
        kubelet.awaitRegistrations("rdma/pf1", 1, WAIT);
        awaitIds("rdma/pf1", 8);
        assertThat(kubelet.admit("default", "p1", "c", "rdma/pf1", 1)).containsExactly("0000:86:00.2");
        List<ContainerAllocation> before = kubelet.plugin("rdma/pf1").allocate("rdma/pf1", List.of("0000:86:00.2"));
        host.moveRdmaToPod("0000:86:00.2", "mlx5_10");
        host.rescan();
        awaitIds("rdma/pf1", 8);

        stopAgent();                                                   // the agent stops ...
        assertThat(dir.resolve("devinfo/rdma-pf1-0000:86:00.2-device.json")).exists();    // the pod runs on
        Files.delete(dir.resolve("devinfo/rdma-pf1-0000:86:00.2-device.json"));
        pools = agent();
        pool("pf1", 0, (vf, h) -> pf("0000:86:00.0").exclusion(vf, h).or(() -> isRdma.exclusion(vf, h)));
        kubelet.awaitRegistrations("rdma/pf1", 2, WAIT);               // ... and starts again

        List<Device> list = awaitIds("rdma/pf1", 8);
        assertThat(list.get(0).id()).isEqualTo("0000:86:00.2");
        assertThat(list.get(0).healthy()).isTrue();
        assertThat(pools.vfStatus().get("0000:86:00.2")).contains("in a pod netns");
        assertThat(kubelet.plugin("rdma/pf1").allocate("rdma/pf1", List.of("0000:86:00.2"))).isEqualTo(before);

        assertThat(dir.resolve("devinfo/rdma-pf1-0000:86:00.2-device.json")).exists();    // written again

        host.returnRdmaFromPod("0000:86:00.2", "mlx5_10");            // the pod is gone
        host.rescan();
        kubelet.remove("default", "p1");
        org.awaitility.Awaitility.await().atMost(WAIT).untilAsserted(() ->
                assertThat(dir.resolve("devinfo/rdma-pf1-0000:86:00.2-device.json")).doesNotExist());
        assertThat(pools.vfStatus().get("0000:86:00.2")).isEqualTo("pool pf1");
    }

    @Test
    void aRemovedPoolHandsItsVfsToTheNextMatchingPool() {
        SriovPools.Handle first = pool("pf0", 0, pf("0000:3b:00.0"));
        pool("all", 1, RDMA);
        kubelet.awaitRegistrations("rdma/all", 1, WAIT);
        awaitIds("rdma/all", 8);

        pools.remove(first);
        assertThat(kubelet.plugin("rdma/all").latest(WAIT)).hasSize(8);    // reserved a moment

        awaitIds("rdma/all", 16);
        // The status map follows the assignment the push came from, on the pools' own thread.
        org.awaitility.Awaitility.await().atMost(WAIT)
                .untilAsserted(() -> assertThat(pools.vfStatus()).containsEntry("0000:3b:00.2", "pool all"));
    }

    @Test
    void aReconfiguredPoolKeepsItsVfsFromLaterPoolsInBetween() {
        SriovPools.Handle first = pool("pf0", 0, pf("0000:3b:00.0"));
        pool("all", 1, RDMA);
        kubelet.awaitRegistrations("rdma/all", 1, WAIT);
        awaitIds("rdma/all", 8);

        pools.remove(first);                                            // SCR: deactivate, then activate
        pool("pf0", 0, (vf, h) -> vf.index() < 4 ? pf("0000:3b:00.0").exclusion(vf, h) : Optional.of("index"));
        awaitIds("rdma/all", 12);

        assertThat(kubelet.plugin("rdma/all").deviceLists()).allSatisfy(u -> assertThat(u.size())
                .isLessThanOrEqualTo(12));
    }

    private SriovPools.Handle cdiPool(String name, VfMatcher matcher, Path cdiDir) {
        return pools.add(new SriovPoolSettings(name, 0, "rdma", name, Policy.SPREAD, false, dir.resolve("devinfo"),
                Optional.of(cdiDir)), matcher, pluginHost);
    }

    @Test
    void answersWithCdiNamesKeepsEnvAndDeviceInfoAndListsEveryVfInTheSpec() throws IOException {
        Path cdiDir = dir.resolve("cdi");
        Files.createDirectories(cdiDir);
        pools.close();
        pools = new SriovPools(host, host.layer(), new RdmaVfLedger(dir.resolve("state/rdma-vfs")),
                dir.resolve("node"));
        SriovPools.Handle h = cdiPool("pf1", pf("0000:86:00.0"), cdiDir);
        kubelet.awaitRegistrations("rdma/pf1", 1, WAIT);
        Path spec = cdiDir.resolve("rdmanode.io-vf_pf1.json");
        assertThat(spec).as("written when the pool starts, before any Allocate").exists();

        List<ContainerAllocation> first = kubelet.plugin("rdma/pf1").allocate("rdma/pf1",
                List.of("0000:86:00.2", "0000:86:00.3"));
        List<ContainerAllocation> again = kubelet.plugin("rdma/pf1").allocate("rdma/pf1",
                List.of("0000:86:00.2", "0000:86:00.3"));

        ContainerAllocation c = first.get(0);
        assertThat(c.devices()).isEmpty();                                 // the runtime takes them from the spec
        assertThat(c.cdiDevices()).containsExactly("rdmanode.io/vf=0000:86:00.2", "rdmanode.io/vf=0000:86:00.3");
        assertThat(c.annotations()).containsExactly(org.assertj.core.api.Assertions.entry(
                "cdi.k8s.io/rdmanode.io_vf_pf1", "rdmanode.io/vf=0000:86:00.2,rdmanode.io/vf=0000:86:00.3"));
        assertThat(c.envs()).containsEntry("PCIDEVICE_RDMA_PF1", "0000:86:00.2,0000:86:00.3");
        assertThat(dir.resolve("devinfo/rdma-pf1-0000:86:00.2-device.json")).exists();
        assertThat(again).isEqualTo(first);
        String json = Files.readString(spec);
        assertThat(json).contains("\"kind\":\"rdmanode.io/vf\"", "\"name\":\"0000:86:00.2\"",
                "\"name\":\"0000:86:01.1\"", "\"path\":\"/dev/infiniband/uverbs21\"",
                "\"hostPath\":\"" + host.devRoot() + "/infiniband/uverbs21\"", "/dev/infiniband/rdma_cm");
        try (var files = Files.list(cdiDir)) {
            assertThat(files).containsExactly(spec);                       // no temp files left behind
        }
        assertThat(h.status()).containsEntry("cdi", spec.toString()).containsKey("cdiRuntime");

        pools.remove(h);
        assertThat(spec).as("a pool that stops leaves its spec").exists();
    }

    /**
     * The spec and device-info files a pod reads outlive stops and restarts (also a start where the pool is no
     * longer configured) while the pod holds the VF, and go once the pool is retired and the VF released.
     */
    @Test
    void aHeldVfsSpecAndDeviceInfoOutliveStopsAndRestartsAndGoOnceThePoolIsRetiredAndTheVfReleased()
            throws Exception {
        Path cdiDir = dir.resolve("cdi");
        Path spec = cdiDir.resolve("rdmanode.io-vf_pf1.json");
        Path info = dir.resolve("devinfo/rdma-pf1-0000:86:00.2-device.json");
        Path other = cdiDir.resolve("rdmanode.io-vf_pf0.json");
        SriovPools.Handle h = cdiPool("pf1", pf("0000:86:00.0"), cdiDir);
        cdiPool("pf0", pf("0000:3b:00.0"), cdiDir);
        kubelet.awaitRegistrations("rdma/pf1", 1, WAIT);
        assertThat(spec).as("written when the pool starts").exists();
        assertThat(kubelet.admit("default", "p1", "c", "rdma/pf1", 1)).containsExactly("0000:86:00.2");
        assertThat(kubelet.admit("default", "p2", "c", "rdma/pf1", 1)).containsExactly("0000:86:00.3");
        Path released = dir.resolve("devinfo/rdma-pf1-0000:86:00.3-device.json");
        assertThat(info).exists();

        pools.remove(h);                                               // a bundle stop
        assertThat(spec).exists();
        assertThat(info).exists();
        kubelet.remove("default", "p2");                               // p2 ends while nothing serves pf1

        // The agent stops and starts without either pool configured: a pod holds a VF of pf1, none of pf0.
        stopAgent();
        assertThat(spec).exists();
        assertThat(other).exists();
        layer = io.rdmanode.deviceplugin.testing.DevicePluginTesting.layer(new io.rdmanode.deviceplugin.LayerSettings(
                new io.rdmanode.deviceplugin.DevicePaths(host.devRoot()), List.of(cdiDir)),
                dir.resolve("state/allocations"), podDevices, Duration.ofMillis(300));
        pools = new SriovPools(host, layer, new RdmaVfLedger(dir.resolve("state/rdma-vfs")));
        org.awaitility.Awaitility.await().atMost(WAIT).untilAsserted(() -> {
            assertThat(other).doesNotExist();
            assertThat(released).as("released, and no configured pool serves its resource").doesNotExist();
        });
        assertThat(spec).as("a pod holds a VF of pf1").exists();
        assertThat(info).exists();

        // pf1 is configured again (written again), then removed from the configuration while p1 runs.
        h = cdiPool("pf1", pf("0000:86:00.0"), cdiDir);
        kubelet.awaitRegistrations("rdma/pf1", 2, WAIT);
        pools.stop(h, io.rdmanode.deviceplugin.ServedPool.CONFIGURATION_DELETED);
        Thread.sleep(1000);
        assertThat(spec).exists();
        assertThat(info).exists();

        kubelet.remove("default", "p1");
        org.awaitility.Awaitility.await().atMost(WAIT).untilAsserted(() -> {
            assertThat(spec).doesNotExist();
            assertThat(info).doesNotExist();
        });
    }

    @Test
    void theCdiSpecFollowsAVfCountChange() throws IOException {
        Path cdiDir = dir.resolve("cdi");
        cdiPool("pf0", pf("0000:3b:00.0"), cdiDir);
        kubelet.awaitRegistrations("rdma/pf0", 1, WAIT);
        Path spec = cdiDir.resolve("rdmanode.io-vf_pf0.json");
        assertThat(Files.readString(spec)).contains("\"name\":\"0000:3b:00.2\"", "\"name\":\"0000:3b:00.6\"");

        host.numVfs("0000:3b:00.0", 4);
        host.rescan();
        awaitIds("rdma/pf0", 4);
        assertThat(Files.readString(spec)).contains("\"name\":\"0000:3b:00.5\"")
                .doesNotContain("\"name\":\"0000:3b:00.6\"");
        assertThatThrownBy(() -> kubelet.plugin("rdma/pf0").allocate("rdma/pf0", List.of("0000:3b:00.6")))
                .isInstanceOf(DevicePluginException.class);

        host.numVfs("0000:3b:00.0", 8);
        host.rescan();
        awaitIds("rdma/pf0", 8);
        assertThat(Files.readString(spec)).contains("\"name\":\"0000:3b:00.6\"");
        assertThat(kubelet.plugin("rdma/pf0").allocate("rdma/pf0", List.of("0000:3b:00.6")).get(0).cdiDevices())
                .containsExactly("rdmanode.io/vf=0000:3b:00.6");
    }

    /**
     * A VF a pod holds stays with the resource kubelet holds it under, across an edit and after its pool is gone,
     * until kubelet lists no container holding it: kubelet's book is per resource name.
     */
    @Test
    void aHeldVfStaysWithItsResourceUntilItsPodIsGone() {
        SriovPools.Handle first = pool("pf0", 0, pf("0000:3b:00.0"));
        pool("all", 1, RDMA);
        kubelet.awaitRegistrations("rdma/pf0", 1, WAIT);
        kubelet.awaitRegistrations("rdma/all", 1, WAIT);
        awaitIds("rdma/all", 8);
        awaitIds("rdma/pf0", 8);
        String held = kubelet.admit("default", "p1", "c", "rdma/pf0", 1).get(0);

        pools.remove(first);                                  // edited: VFs 4-7 of the PF only
        SriovPools.Handle edited = pool("pf0", 0, (vf, h) -> vf.index() >= 4 ? pf("0000:3b:00.0").exclusion(vf, h)
                : Optional.of("index"));
        boolean stillMatched = edited.pool().vfs().containsKey(held);
        List<Device> during = awaitIds("rdma/all", stillMatched ? 12 : 11);     // VFs 0-3 move, but the held one
        assertThat(during).noneMatch(d -> d.id().equals(held));
        org.awaitility.Awaitility.await().pollDelay(Duration.ofMillis(SriovPools.RESERVE_MILLIS + 500))
                .atMost(WAIT).untilAsserted(() -> assertThat(pools.vfStatus()).doesNotContainEntry(held, "pool all"));

        pools.remove(edited);                                 // rdma/pf0 is gone; the pod still runs
        List<Device> all = awaitIds("rdma/all", 15);
        assertThat(all).noneMatch(d -> d.id().equals(held));
        assertThat(pools.vfStatus().get(held)).contains("allocated as rdma/pf0");

        kubelet.remove("default", "p1");                     // the pod is gone: kubelet frees it
        assertThat(awaitIds("rdma/all", 16)).anyMatch(d -> d.id().equals(held));
        assertThat(kubelet.plugin("rdma/all").deviceLists()).allSatisfy(u -> assertThat(u)
                .noneMatch(d -> d.id().equals(held) && u.size() < 16));
    }

    /**
     * The double allocation: a pod holds a VF, the agent restarts (its ledger file lost, or kubelet's
     * pod-resources API down: the checkpoint answers), the pools are edited so that VF now matches another
     * resource first. Kubelet admits every device the new resource offers: the held VF is never among them.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"ledger kept", "ledger lost", "ledger corrupt",
            "pod-resources down"})
    void aVfHeldBeforeAnAgentRestartIsNeverOfferedUnderAnotherResource(String fault) throws IOException {
        pool("pf0", 0, pf("0000:3b:00.0"));
        kubelet.awaitRegistrations("rdma/pf0", 1, WAIT);
        awaitIds("rdma/pf0", 8);
        List<String> held = kubelet.admit("default", "p1", "c", "rdma/pf0", 2);

        stopAgent();                                          // the agent stops
        Path ledger = dir.resolve("state/allocations");
        switch (fault) {
            case "ledger lost" -> Files.delete(ledger);
            case "ledger corrupt" -> Files.writeString(ledger, Files.readString(ledger).replace("rdma/pf0", "rdma/pfX"));
            case "pod-resources down" -> kubelet.stopPodResources();
            default -> { }
        }
        pools = agent();                                      // and starts with the pools edited:
        pool("all", 0, RDMA);                                 // every RDMA VF, first
        kubelet.awaitRegistrations("rdma/all", 1, WAIT);

        List<Device> offered = awaitIds("rdma/all", 14);
        assertThat(offered).extracting(Device::id).doesNotContainAnyElementsOf(held);
        int healthy = (int) offered.stream().filter(Device::healthy).count();
        List<String> second = kubelet.admit("default", "p2", "c", "rdma/all", healthy);
        assertThat(second).doesNotContainAnyElementsOf(held);
        assertThat(kubelet.plugin("rdma/all").deviceLists()).allSatisfy(u -> assertThat(u).extracting(Device::id)
                .doesNotContainAnyElementsOf(held));
    }

    /**
     * One owner per device on the node, both ways (issue 24): a VF a DRA claim holds (an outside holder of the
     * layer) leaves every pool's ListAndWatch and an Allocate naming it is refused; a VF a pod holds through a pool
     * is refused to the outside holder; released, the VF is offered again.
     */
    @Test
    void aVfHeldOutsideThePoolsIsOfferedByNoneAndAPodsVfCannotBeHeldOutside() {
        pool("pf0", 0, pf("0000:3b:00.0"));
        kubelet.awaitRegistrations("rdma/pf0", 1, WAIT);
        awaitIds("rdma/pf0", 8);
        String podVf = kubelet.admit("default", "p1", "c", "rdma/pf0", 1).get(0);
        String draVf = awaitIds("rdma/pf0", 8).stream().map(Device::id).filter(id -> !id.equals(podVf)).findFirst()
                .orElseThrow();

        try (io.rdmanode.deviceplugin.DevicePluginLayer.OutsideHolder dra = layer.outsideHolder("DRA driver test")) {
            assertThat(dra.hold(List.of(podVf))).containsEntry(podVf, "rdma/pf0");
            assertThat(dra.hold(List.of(draVf, podVf))).containsOnlyKeys(podVf);     // all or none
            assertThat(dra.hold(List.of(draVf))).isEmpty();

            assertThat(awaitIds("rdma/pf0", 7)).noneMatch(d -> d.id().equals(draVf));
            assertThatThrownBy(() -> kubelet.plugin("rdma/pf0").allocate("rdma/pf0", List.of(draVf)))
                    .hasMessageContaining("DRA driver test");
            assertThat(pools.vfStatus().get(draVf)).contains("DRA driver test");

            dra.release(List.of(draVf));
            assertThat(awaitIds("rdma/pf0", 8)).anyMatch(d -> d.id().equals(draVf));
            assertThat(dra.hold(List.of(draVf))).isEmpty();
        }
        assertThat(awaitIds("rdma/pf0", 8)).anyMatch(d -> d.id().equals(draVf));    // closed: everything released
    }
}
