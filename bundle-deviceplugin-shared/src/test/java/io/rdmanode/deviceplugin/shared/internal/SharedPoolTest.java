// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.deviceplugin.PoolView;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePluginException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shared pool as a pure function of a recorded host, and its Allocate answer. */
class SharedPoolTest {

    static final DevicePluginLayer LAYER = io.rdmanode.deviceplugin.testing.DevicePluginTesting.layer(new LayerSettings(DevicePaths.DEFAULT, List.of()));

    @TempDir
    Path dir;

    static SharedPool pool(String name, Object... keyValues) {
        return new SharedPool(Pools.settings(name, keyValues), LAYER, Optional.empty());
    }

    @Test
    void advertisesRdmaHcaMaxIdsEachNamingTheNumaNodeOfOneMatchedHca() {
        RecordedHostDiscovery host = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir);
        SharedPool pool = pool("hca_a", "rdmaHcaMax", 5, "selectors.deviceIDs", new String[] {"1017"});
        PoolView v = pool.compute(host.snapshot());

        assertThat(pool.resourceName()).isEqualTo("rdma/hca_a");
        assertThat(v.selection().matchedKeys()).containsExactly("mlx5_0", "mlx5_9");
        assertThat(v.devices()).extracting(Device::id).containsExactly("hca_a-0", "hca_a-1", "hca_a-2", "hca_a-3",
                "hca_a-4");
        assertThat(v.devices()).allSatisfy(d -> assertThat(d.healthy()).isTrue());
        // mlx5_0 (0000:3b:00.0) on node 0 and mlx5_9 (0000:86:00.0) on node 1, dealt in PCI order.
        assertThat(v.devices()).extracting(Device::numaNodes).containsExactly(List.of(0L), List.of(1L), List.of(0L),
                List.of(1L), List.of(0L));
        assertThat(v.details()).containsEntry("idsPerHca",
                java.util.Map.of("mlx5_0", "3 IDs, NUMA 0", "mlx5_9", "2 IDs, NUMA 1"));
        assertThat(v.selection().exclusionReasons()).containsEntry("mlx5_1", "device ID 1018 not in deviceIDs [1017]");
    }

    /** Issue 27: an edit of rdmaHcaMax or a restart leaves every remaining ID naming the NUMA node it named. */
    @Test
    void keepsEachIdsNumaNodeAcrossRdmaHcaMaxEditsAndRestarts() {
        RecordedHostDiscovery host = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir);
        String[] pfs = {"1017"};
        List<List<Long>> before = pool("hca_a", "rdmaHcaMax", 5, "selectors.deviceIDs", pfs).compute(host.snapshot())
                .devices().stream().map(Device::numaNodes).toList();
        List<List<Long>> raised = pool("hca_a", "rdmaHcaMax", 8, "selectors.deviceIDs", pfs).compute(host.snapshot())
                .devices().stream().map(Device::numaNodes).toList();
        List<List<Long>> lowered = pool("hca_a", "rdmaHcaMax", 3, "selectors.deviceIDs", pfs)
                .compute(host.snapshot()).devices().stream().map(Device::numaNodes).toList();

        assertThat(raised.subList(0, 5)).isEqualTo(before);
        assertThat(lowered).isEqualTo(before.subList(0, 3));
        assertThat(raised).allSatisfy(n -> assertThat(n).hasSize(1));
    }

    @Test
    void givesIdsOfAnHcaWithoutNumaNodeNoTopology() {
        RecordedHostDiscovery host = RecordedHostDiscovery.unpack("rxe", dir);
        PoolView soft = pool("soft", "rdmaHcaMax", 3, "selectors.linkTypes", new String[] {"ether"})
                .compute(host.snapshot());

        assertThat(soft.devices()).allSatisfy(d -> assertThat(d.numaNodes()).isEmpty());
    }

    @Test
    void allocatesEveryCharacterDeviceOfTheMatchedHcasAtTheNodesDevPathsNotWhereTheAgentReads() {
        RecordedHostDiscovery host = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir);
        SharedPool pool = pool("hca_a", "selectors.ifNames", new String[] {"ens1f0"});
        PoolView v = pool.compute(host.snapshot());

        ContainerAllocation a = pool.allocate(v, List.of("hca_a-0", "hca_a-999"));

        // Issue #8.2: discovery read <dir>/dev; kubelet and the runtime get /dev/infiniband/... on both sides.
        assertThat(a.devices()).containsExactly(
                new DeviceNode("/dev/infiniband/uverbs0", "/dev/infiniband/uverbs0", "rw"),
                new DeviceNode("/dev/infiniband/umad0", "/dev/infiniband/umad0", "rw"),
                new DeviceNode("/dev/infiniband/issm0", "/dev/infiniband/issm0", "rw"),
                new DeviceNode("/dev/infiniband/rdma_cm", "/dev/infiniband/rdma_cm", "rw"));
        assertThat(a.cdiDevices()).isEmpty();
        assertThat(a.annotations()).isEmpty();
    }

    @Test
    void refusesUnknownIdsNamingEachOfThem() {
        RecordedHostDiscovery host = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir);
        SharedPool pool = pool("hca_a", "rdmaHcaMax", 10, "selectors.vendors", new String[] {"15b3"});
        PoolView v = pool.compute(host.snapshot());

        assertThatThrownBy(() -> pool.allocate(v, List.of("hca_a-3", "hca_a-10", "hca_b-1", "hca_a-03")))
                .isInstanceOfSatisfying(DevicePluginException.class, e -> {
                    assertThat(e.code()).isEqualTo(DevicePluginException.Code.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).contains("'hca_a-10'", "'hca_b-1'", "'hca_a-03'", "rdma/hca_a")
                            .doesNotContain("'hca_a-3'");
                });
    }

    @Test
    void isUnhealthyWhenEveryMatchedHcaHasItsPortsDown() {
        RecordedHostDiscovery host = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir);
        SharedPool pool = pool("vf7", "selectors.ifNames", new String[] {"ens1f0v7"});
        PoolView v = pool.compute(host.snapshot());

        assertThat(v.selection().matchedKeys()).containsExactly("mlx5_8");
        assertThat(v.healthy()).isFalse();
        assertThat(v.reason()).contains("no usable HCA").contains("mlx5_8").contains("DOWN");
        assertThat(v.devices()).allSatisfy(d -> assertThat(d.healthy()).isFalse());
        assertThatThrownBy(() -> pool.allocate(v, List.of("vf7-0")))
                .isInstanceOfSatisfying(DevicePluginException.class,
                        e -> assertThat(e.code()).isEqualTo(DevicePluginException.Code.UNAVAILABLE));

        host.portState("mlx5_8", 1, "4: ACTIVE");
        PoolView up = pool.compute(host.rescan());
        assertThat(up.sameContent(v)).isFalse();
        assertThat(up.healthy()).isTrue();
        assertThat(up.devices()).allSatisfy(d -> assertThat(d.healthy()).isTrue());
    }

    @Test
    void leavesAnHcaWhosePortsAreAllDownOutOfAllocateAndSaysSo() {
        RecordedHostDiscovery host = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir);
        SharedPool pool = pool("pf0", "selectors.ifNames", new String[] {"ens1f0", "ens1f0v7"});
        PoolView v = pool.compute(host.snapshot());

        assertThat(v.healthy()).isTrue();
        assertThat(v.unusable()).containsOnlyKeys("mlx5_8");
        assertThat(v.unusable().get("mlx5_8")).contains("no port ACTIVE");
        assertThat(v.details()).containsEntry("leftOutOfAllocate", List.of("mlx5_8"));
        // Issue #8.5: mlx5_8 (port DOWN) is matched but its uverbs8 is not handed out; mlx5_0's are.
        ContainerAllocation a = pool.allocate(v, List.of("pf0-0"));
        assertThat(a.devices()).extracting(DeviceNode::containerPath).contains("/dev/infiniband/uverbs0")
                .doesNotContain("/dev/infiniband/uverbs8", "/dev/infiniband/umad8");
        assertThat(pool.compute(host.rescan()).sameContent(v)).isTrue();
    }

    @Test
    void reportsExclusiveNetnsModeAsUnhealthyInsteadOfRefusingToStart() {
        RecordedHostDiscovery host = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir);
        host.netnsMode(NetnsMode.Mode.EXCLUSIVE);
        PoolView v = pool("hca_a", "selectors.vendors", new String[] {"15b3"}).compute(host.rescan());

        assertThat(v.healthy()).isFalse();
        assertThat(v.reason()).contains("exclusive");
    }

    @Test
    void saysWhichSelectorExcludedWhichDeviceWhenItMatchesNothing() {
        RecordedHostDiscovery host = RecordedHostDiscovery.unpack("cx6-ib", dir);
        PoolView v = pool("roce", "selectors.vendors", new String[] {"15b3"}, "selectors.linkTypes",
                new String[] {"ether"}).compute(host.snapshot());

        assertThat(v.selection().matched()).isEmpty();
        assertThat(v.healthy()).isFalse();
        assertThat(v.reason()).startsWith("matches no RDMA device")
                .contains("mlx5_0=link layers [infiniband] not in linkTypes [ether]");
        assertThat(v.selection().exclusionReasons()).containsKey("mlx5_0");
    }

    @Test
    void matchesSoftRoceByDriverlessSelectors() {
        RecordedHostDiscovery host = RecordedHostDiscovery.unpack("rxe", dir);
        PoolView soft = pool("soft", "selectors.linkTypes", new String[] {"ether"}).compute(host.snapshot());
        PoolView byVendor = pool("hw", "selectors.vendors", new String[] {"15b3"}).compute(host.snapshot());

        assertThat(soft.selection().matched()).isNotEmpty();
        assertThat(soft.devices().get(0).numaNodes()).isEmpty();
        assertThat(byVendor.selection().exclusionReasons().values())
                .allSatisfy(r -> assertThat(r).contains("no PCI function"));
    }

    @Test
    void writesACdiSpecAndAnswersWithCdiNamesWhenCdiIsOn() throws Exception {
        RecordedHostDiscovery host = RecordedHostDiscovery.unpack("cx6-ib", dir.resolve("host"));
        Path cdiDir = dir.resolve("cdi");
        SharedPool pool = pool("ib", "selectors.linkTypes", new String[] {"infiniband"}, "cdi", true,
                "cdiSpecDir", cdiDir.toString());

        io.rdmanode.deviceplugin.PoolView view = pool.compute(host.snapshot());
        Path spec = cdiDir.resolve("rdmanode.io-hca_ib.json");
        assertThat(spec).as("written with the first view, before any Allocate").exists();
        ContainerAllocation a = pool.allocate(view, List.of("ib-0"));

        assertThat(a.cdiDevices()).containsExactly("rdmanode.io/hca=ib");
        assertThat(a.annotations()).containsEntry("cdi.k8s.io/rdmanode.io_hca_ib", "rdmanode.io/hca=ib");
        assertThat(a.devices()).isEmpty();
        String json = Files.readString(spec);
        assertThat(json).contains("\"kind\":\"rdmanode.io/hca\"", "\"name\":\"ib\"",
                "\"path\":\"/dev/infiniband/uverbs0\"", "\"hostPath\":\"/dev/infiniband/uverbs0\"", "rdma_cm");
        try (var files = Files.list(cdiDir)) {
            assertThat(files).containsExactly(spec);          // no temp files left behind
        }
        pool.stopped();
        assertThat(spec).as("a pool that stops leaves its spec").exists();
    }

    @Test
    void rejectsBadPools() {
        assertThatThrownBy(() -> Pools.settings("a")).hasMessageContaining("no selectors");
        assertThatThrownBy(() -> Pools.settings("a", "resourceName", "bad name", "selectors.vendors",
                new String[] {"15b3"})).hasMessageContaining("resourceName 'bad name'");
        assertThatThrownBy(() -> Pools.settings("a", "rdmaHcaMax", -1, "selectors.vendors", new String[] {"15b3"}))
                .hasMessageContaining("rdmaHcaMax -1");
        assertThatThrownBy(() -> Pools.settings("a", "resourceName", "x".repeat(60), "selectors.vendors",
                new String[] {"15b3"})).hasMessageContaining("kubelet allows 63");
        assertThatThrownBy(() -> Pools.settings("a", "selectors.linkTypes", new String[] {"fddi"}))
                .hasMessageContaining("fddi");
        assertThat(Pools.settings("a", "resourcePrefix", "example.com", "selectors.vendors",
                new String[] {"0x15B3"}).extendedResourceName()).isEqualTo("example.com/a");
    }
}
