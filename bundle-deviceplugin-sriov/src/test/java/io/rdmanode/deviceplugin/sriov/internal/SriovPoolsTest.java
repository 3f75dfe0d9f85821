// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.rdmanode.deviceplugin.sriov.internal.PreferredAllocator.Policy;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.kubelet.internal.FakeKubelet;
import io.rdmanode.kubelet.internal.HostSettings;
import io.rdmanode.kubelet.internal.KubeletDevicePluginHost;
import io.rdmanode.kubelet.internal.v1beta1.AllocateResponse;
import io.rdmanode.kubelet.internal.v1beta1.ContainerAllocateResponse;
import io.rdmanode.kubelet.internal.v1beta1.ListAndWatchResponse;
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
    private FakeKubelet kubelet;
    private KubeletDevicePluginHost pluginHost;
    private SriovPools pools;

    @BeforeEach
    void start() throws IOException {
        host = SriovHost.recorded(dir.resolve("host"));
        Path plugins = Files.createDirectories(dir.resolve("device-plugins"));
        pluginHost = new KubeletDevicePluginHost(new HostSettings(plugins, plugins.resolve("kubelet.sock"), 2000,
                2000, 60_000, 1));
        kubelet = new FakeKubelet(plugins).start();
        pools = new SriovPools(host, host.layer(), new RdmaVfLedger(dir.resolve("state/rdma-vfs")));
    }

    @AfterEach
    void stop() {
        pools.close();
        pluginHost.close();
        kubelet.close();
    }

    private SriovPools.Handle pool(String name, int order, VfMatcher matcher) {
        return pools.add(new SriovPoolSettings(name, order, "rdma", name, Policy.SPREAD, false,
                dir.resolve("devinfo")), matcher, pluginHost);
    }

    private static VfMatcher pf(String pf) {
        return (vf, h) -> vf.pf().toString().equals(pf) ? Optional.empty() : Optional.of("PF " + vf.pf());
    }

    private ListAndWatchResponse awaitIds(String resource, int count) {
        return kubelet.plugin(resource).awaitUpdate(u -> u.getDevicesCount() == count, WAIT);
    }

    @Test
    void advertisesOneIdPerVfWithItsNumaNodeAndTheFirstPoolWins() {
        pool("pf0", 0, pf("0000:3b:00.0"));
        pool("all", 1, RDMA);
        kubelet.awaitRegistrations("rdma/pf0", 1, WAIT);
        kubelet.awaitRegistrations("rdma/all", 1, WAIT);

        ListAndWatchResponse pf0 = awaitIds("rdma/pf0", 8);
        ListAndWatchResponse all = awaitIds("rdma/all", 8);

        assertThat(kubelet.plugin("rdma/pf0").options().getGetPreferredAllocationAvailable()).isTrue();
        assertThat(pf0.getDevices(0).getID()).isEqualTo("0000:3b:00.2");
        assertThat(pf0.getDevices(0).getTopology().getNodes(0).getID()).isZero();
        assertThat(pf0.getDevices(7).getHealth()).isEqualTo("Unhealthy");           // ens1f0v7 is down
        assertThat(all.getDevicesList()).allSatisfy(d -> {
            assertThat(d.getID()).startsWith("0000:86:");
            assertThat(d.getTopology().getNodes(0).getID()).isEqualTo(1);
        });
        assertThat(pools.vfStatus()).containsEntry("0000:86:00.2", "pool all");
    }

    @Test
    void allocatesTheVfsRdmaNodesEnvAndDeviceInfoAndAgainForTheNextContainer() throws IOException {
        pool("pf1", 0, pf("0000:86:00.0"));
        kubelet.awaitRegistrations("rdma/pf1", 1, WAIT);

        AllocateResponse first = kubelet.plugin("rdma/pf1").allocate(List.of("0000:86:00.2"));
        AllocateResponse again = kubelet.plugin("rdma/pf1").allocate(List.of("0000:86:00.2"));

        ContainerAllocateResponse c = first.getContainerResponses(0);
        Path dev = host.devRoot();
        assertThat(c.getDevicesList()).extracting(d -> d.getContainerPath(), d -> d.getHostPath())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("/dev/infiniband/uverbs21", dev + "/infiniband/uverbs21"),
                        org.assertj.core.groups.Tuple.tuple("/dev/infiniband/umad21", dev + "/infiniband/umad21"),
                        org.assertj.core.groups.Tuple.tuple("/dev/infiniband/issm21", dev + "/infiniband/issm21"),
                        org.assertj.core.groups.Tuple.tuple("/dev/infiniband/rdma_cm", dev + "/infiniband/rdma_cm"));
        assertThat(c.getEnvsMap()).containsEntry("PCIDEVICE_RDMA_PF1", "0000:86:00.2");
        assertThat(c.getEnvsMap().get("PCIDEVICE_RDMA_PF1_INFO")).contains("\"rdma_dev\":\"mlx5_10\"");
        assertThat(Files.readString(dir.resolve("devinfo/rdma-pf1-0000:86:00.2-device.json")))
                .contains("\"pci-address\":\"0000:86:00.2\"").contains("\"pf-pci-address\":\"0000:86:00.0\"")
                .contains("\"rdma-device\":\"mlx5_10\"");
        assertThat(again).isEqualTo(first);
    }

    @Test
    void refusesUnknownIdsWithTheirNames() {
        pool("pf1", 0, pf("0000:86:00.0"));
        kubelet.awaitRegistrations("rdma/pf1", 1, WAIT);

        assertThatThrownBy(() -> kubelet.plugin("rdma/pf1").allocate(List.of("0000:86:00.2", "0000:3b:00.2")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).contains("'0000:3b:00.2'").contains("rdma/pf1")
                            .doesNotContain("'0000:86:00.2'");
                });
        assertThatThrownBy(() -> kubelet.plugin("rdma/pf1").allocate(List.of("mlx5_3")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
                        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        assertThatThrownBy(() -> kubelet.plugin("rdma/pf1").allocate(List.of()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).contains("no device id");
                });
    }

    @Test
    void refusesAnUnhealthyVfWithTheReason() {
        pool("pf0", 0, pf("0000:3b:00.0"));
        kubelet.awaitRegistrations("rdma/pf0", 1, WAIT);

        assertThatThrownBy(() -> kubelet.plugin("rdma/pf0").allocate(List.of("0000:3b:01.1")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
                    assertThat(e.getStatus().getDescription()).contains("0000:3b:01.1").contains("mlx5_8");
                });
    }

    @Test
    void prefersTheSmallestNumaNodeThatFitsTheRequest() {
        pool("all", 0, RDMA);
        kubelet.awaitRegistrations("rdma/all", 1, WAIT);
        List<String> available = List.of("0000:3b:00.2", "0000:3b:00.3", "0000:86:00.2", "0000:86:00.3",
                "0000:86:00.4");

        List<String> three = kubelet.plugin("rdma/all").preferred(available, List.of(), 3)
                .getContainerResponses(0).getDeviceIDsList();
        List<String> two = kubelet.plugin("rdma/all").preferred(available, List.of(), 2)
                .getContainerResponses(0).getDeviceIDsList();

        assertThat(three).containsExactly("0000:86:00.2", "0000:86:00.3", "0000:86:00.4");     // only NUMA 1 fits
        assertThat(two).containsExactly("0000:3b:00.2", "0000:3b:00.3");     // best fit: NUMA 0 has exactly two
    }

    @Test
    void followsAVfCountChangeWithoutRestart() throws IOException {
        pool("pf0", 0, pf("0000:3b:00.0"));
        kubelet.awaitRegistrations("rdma/pf0", 1, WAIT);
        awaitIds("rdma/pf0", 8);
        kubelet.plugin("rdma/pf0").allocate(List.of("0000:3b:00.6"));
        Path info = dir.resolve("devinfo/rdma-pf0-0000:3b:00.6-device.json");
        assertThat(info).exists();

        host.numVfs("0000:3b:00.0", 4);
        host.rescan();
        ListAndWatchResponse fewer = awaitIds("rdma/pf0", 4);

        assertThat(fewer.getDevicesList()).extracting(d -> d.getID()).containsExactly("0000:3b:00.2",
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
        kubelet.plugin("rdma/pf1").awaitUpdate(u -> u.getDevicesList().stream()
                .allMatch(d -> d.getHealth().equals("Unhealthy")), WAIT);
        assertThat(pools.vfStatus().get("0000:86:00.2")).contains("PF 0000:86:00.0 link down");

        host.portState("mlx5_9", 1, "4: ACTIVE");
        host.rescan();
        kubelet.plugin("rdma/pf1").awaitUpdate(u -> u.getDevicesList().stream()     // all but VF 7 (down itself)
                .filter(d -> d.getHealth().equals("Healthy")).count() == 7, WAIT);
        assertThat(kubelet.plugin("rdma/pf1").updates()).hasSize(3);
    }

    @Test
    void keepsVfsWhoseRdmaDeviceIsInAPodAcrossARestart() {
        host.netnsMode(NetnsMode.Mode.EXCLUSIVE);
        host.rescan();
        VfMatcher isRdma = RDMA;
        pool("pf1", 0, (vf, h) -> pf("0000:86:00.0").exclusion(vf, h).or(() -> isRdma.exclusion(vf, h)));
        kubelet.awaitRegistrations("rdma/pf1", 1, WAIT);
        AllocateResponse before = kubelet.plugin("rdma/pf1").allocate(List.of("0000:86:00.2"));
        host.moveRdmaToPod("0000:86:00.2", "mlx5_10");
        host.rescan();
        awaitIds("rdma/pf1", 8);

        pools.close();                                                 // the agent stops ...
        pools = new SriovPools(host, host.layer(), new RdmaVfLedger(dir.resolve("state/rdma-vfs")));
        pool("pf1", 0, (vf, h) -> pf("0000:86:00.0").exclusion(vf, h).or(() -> isRdma.exclusion(vf, h)));
        kubelet.awaitRegistrations("rdma/pf1", 2, WAIT);               // ... and starts again

        ListAndWatchResponse list = awaitIds("rdma/pf1", 8);
        assertThat(list.getDevices(0).getID()).isEqualTo("0000:86:00.2");
        assertThat(list.getDevices(0).getHealth()).isEqualTo("Healthy");
        assertThat(pools.vfStatus().get("0000:86:00.2")).contains("in a pod netns");
        assertThat(kubelet.plugin("rdma/pf1").allocate(List.of("0000:86:00.2"))).isEqualTo(before);

        host.returnRdmaFromPod("0000:86:00.2", "mlx5_10");            // the pod is gone
        host.rescan();
        assertThat(dir.resolve("devinfo/rdma-pf1-0000:86:00.2-device.json")).doesNotExist();
        assertThat(pools.vfStatus().get("0000:86:00.2")).isEqualTo("pool pf1");
    }

    @Test
    void aRemovedPoolHandsItsVfsToTheNextMatchingPool() {
        SriovPools.Handle first = pool("pf0", 0, pf("0000:3b:00.0"));
        pool("all", 1, RDMA);
        kubelet.awaitRegistrations("rdma/all", 1, WAIT);
        awaitIds("rdma/all", 8);

        pools.remove(first);
        assertThat(kubelet.plugin("rdma/all").latest(WAIT).getDevicesCount()).isEqualTo(8);    // reserved a moment

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

        assertThat(kubelet.plugin("rdma/all").updates()).allSatisfy(u -> assertThat(u.getDevicesCount())
                .isLessThanOrEqualTo(12));
    }
}
