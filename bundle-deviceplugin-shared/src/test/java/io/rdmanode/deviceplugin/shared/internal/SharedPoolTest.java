// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePluginException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SharedPoolTest {

    @TempDir
    Path dir;

    @Test
    void advertisesRdmaHcaMaxIdsWithTheNumaNodesOfTheMatchedHcas() {
        FixtureDiscovery host = FixtureDiscovery.unpack("cx5-roce-sriov", dir);
        SharedPool pool = new SharedPool(Pools.settings("hca_a", "rdmaHcaMax", 5, "selectors.deviceIDs",
                new String[] {"1017"}), host.snapshot());

        assertThat(pool.resourceName()).isEqualTo("rdma/hca_a");
        assertThat(pool.state().matched()).containsExactly("mlx5_0", "mlx5_9");
        assertThat(pool.devices()).extracting(Device::id).containsExactly("hca_a-0", "hca_a-1", "hca_a-2", "hca_a-3",
                "hca_a-4");
        assertThat(pool.devices()).allSatisfy(d -> {
            assertThat(d.healthy()).isTrue();
            assertThat(d.numaNodes()).containsExactly(0L, 1L);
        });
        assertThat(pool.state().excluded()).containsEntry("mlx5_1", "device ID 1018 not in deviceIDs [1017]");
    }

    @Test
    void allocatesEveryCharacterDeviceOfTheMatchedHcasWithContainerPathEqualToHostPath() {
        FixtureDiscovery host = FixtureDiscovery.unpack("cx5-roce-sriov", dir);
        SharedPool pool = new SharedPool(Pools.settings("hca_a", "selectors.ifNames", new String[] {"ens1f0"}),
                host.snapshot());

        ContainerAllocation a = pool.allocate(List.of("hca_a-0", "hca_a-999"));

        Path ib = dir.resolve("dev/infiniband");
        assertThat(a.devices()).containsExactly(
                new DeviceNode(ib.resolve("uverbs0").toString(), ib.resolve("uverbs0").toString(), "rw"),
                new DeviceNode(ib.resolve("umad0").toString(), ib.resolve("umad0").toString(), "rw"),
                new DeviceNode(ib.resolve("issm0").toString(), ib.resolve("issm0").toString(), "rw"),
                new DeviceNode(ib.resolve("rdma_cm").toString(), ib.resolve("rdma_cm").toString(), "rw"));
        assertThat(a.cdiDevices()).isEmpty();
        assertThat(a.annotations()).isEmpty();
    }

    @Test
    void refusesUnknownIdsNamingEachOfThem() {
        FixtureDiscovery host = FixtureDiscovery.unpack("cx5-roce-sriov", dir);
        SharedPool pool = new SharedPool(Pools.settings("hca_a", "rdmaHcaMax", 10, "selectors.vendors",
                new String[] {"15b3"}), host.snapshot());

        assertThatThrownBy(() -> pool.allocate(List.of("hca_a-3", "hca_a-10", "hca_b-1", "hca_a-03")))
                .isInstanceOfSatisfying(DevicePluginException.class, e -> {
                    assertThat(e.code()).isEqualTo(DevicePluginException.Code.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).contains("'hca_a-10'", "'hca_b-1'", "'hca_a-03'", "rdma/hca_a")
                            .doesNotContain("'hca_a-3'");
                });
    }

    @Test
    void isUnhealthyWhenEveryMatchedHcaHasItsPortsDown() {
        FixtureDiscovery host = FixtureDiscovery.unpack("cx5-roce-sriov", dir);
        SharedPool pool = new SharedPool(Pools.settings("vf7", "selectors.ifNames", new String[] {"ens1f0v7"}),
                host.snapshot());

        assertThat(pool.state().matched()).containsExactly("mlx5_8");
        assertThat(pool.state().healthy()).isFalse();
        assertThat(pool.state().reason()).contains("no usable HCA").contains("mlx5_8").contains("DOWN");
        assertThat(pool.devices()).allSatisfy(d -> assertThat(d.healthy()).isFalse());
        assertThatThrownBy(() -> pool.allocate(List.of("vf7-0")))
                .isInstanceOfSatisfying(DevicePluginException.class,
                        e -> assertThat(e.code()).isEqualTo(DevicePluginException.Code.UNAVAILABLE));

        host.portState("mlx5_8", 1, "4: ACTIVE");
        assertThat(pool.update(host.rescan())).isTrue();
        assertThat(pool.state().healthy()).isTrue();
        assertThat(pool.devices()).allSatisfy(d -> assertThat(d.healthy()).isTrue());
    }

    @Test
    void staysHealthyWhileOneMatchedHcaIsUsable() {
        FixtureDiscovery host = FixtureDiscovery.unpack("cx5-roce-sriov", dir);
        SharedPool pool = new SharedPool(Pools.settings("pf0", "selectors.ifNames",
                new String[] {"ens1f0", "ens1f0v7"}), host.snapshot());

        assertThat(pool.state().healthy()).isTrue();
        assertThat(pool.state().unhealthy()).containsOnlyKeys("mlx5_8");
        assertThat(pool.update(host.rescan())).isFalse();
    }

    @Test
    void reportsExclusiveNetnsModeAsUnhealthyInsteadOfRefusingToStart() {
        FixtureDiscovery host = FixtureDiscovery.unpack("cx5-roce-sriov", dir);
        host.netnsMode(NetnsMode.Mode.EXCLUSIVE);
        SharedPool pool = new SharedPool(Pools.settings("hca_a", "selectors.vendors", new String[] {"15b3"}),
                host.rescan());

        assertThat(pool.state().healthy()).isFalse();
        assertThat(pool.state().reason()).contains("exclusive");
        assertThat(pool.status()).containsEntry("healthy", false).containsKey("reason");
    }

    @Test
    void saysWhichSelectorExcludedWhichDeviceWhenItMatchesNothing() {
        FixtureDiscovery host = FixtureDiscovery.unpack("cx6-ib", dir);
        SharedPool pool = new SharedPool(Pools.settings("roce", "selectors.vendors", new String[] {"15b3"},
                "selectors.linkTypes", new String[] {"ether"}), host.snapshot());

        assertThat(pool.state().matched()).isEmpty();
        assertThat(pool.state().healthy()).isFalse();
        assertThat(pool.state().reason()).startsWith("matches no RDMA device")
                .contains("mlx5_0=link layers [infiniband] not in linkTypes [ether]");
        assertThat(pool.status()).extractingByKey("excluded").asString().contains("mlx5_0");
    }

    @Test
    void matchesSoftRoceByDriverlessSelectors() {
        FixtureDiscovery host = FixtureDiscovery.unpack("rxe", dir);
        SharedPool pool = new SharedPool(Pools.settings("soft", "selectors.linkTypes", new String[] {"ether"}),
                host.snapshot());
        SharedPool byVendor = new SharedPool(Pools.settings("hw", "selectors.vendors", new String[] {"15b3"}),
                host.snapshot());

        assertThat(pool.state().matched()).isNotEmpty();
        assertThat(pool.devices().get(0).numaNodes()).isEmpty();
        assertThat(byVendor.state().excluded().values()).allSatisfy(r -> assertThat(r).contains("no PCI function"));
    }

    @Test
    void writesACdiSpecAndAnswersWithCdiNamesWhenCdiIsOn() throws Exception {
        FixtureDiscovery host = FixtureDiscovery.unpack("cx6-ib", dir.resolve("host"));
        Path cdiDir = dir.resolve("cdi");
        SharedPool pool = new SharedPool(Pools.settings("ib", "selectors.linkTypes", new String[] {"infiniband"},
                "cdi", true, "cdiSpecDir", cdiDir.toString()), host.snapshot());

        ContainerAllocation a = pool.allocate(List.of("ib-0"));

        assertThat(a.cdiDevices()).containsExactly("rdmanode.io/hca=ib");
        assertThat(a.annotations()).containsEntry("cdi.k8s.io/rdmanode.io_hca_ib", "rdmanode.io/hca=ib");
        assertThat(a.devices()).isEmpty();
        Path spec = cdiDir.resolve("rdmanode.io-hca_ib.json");
        String json = Files.readString(spec);
        assertThat(json).contains("\"kind\":\"rdmanode.io/hca\"", "\"name\":\"ib\"",
                "\"path\":\"" + dir.resolve("host/dev/infiniband/uverbs0") + "\"", "rdma_cm");
        try (var files = Files.list(cdiDir)) {
            assertThat(files).containsExactly(spec);          // no temp files left behind
        }
        pool.close();
        assertThat(spec).doesNotExist();
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
