// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** VFs of the recorded ConnectX-5 host assigned to pools: first match wins, reasons, health, the ledger. */
class PoolAssignmentTest {

    @TempDir
    Path dir;
    private SriovHost host;

    @BeforeEach
    void unpack() {
        host = SriovHost.recorded(dir);
    }

    private static VfMatcher pf(String pf) {
        return (vf, h) -> vf.pf().toString().equals(pf) ? Optional.empty()
                : Optional.of("PF " + vf.pf() + " is not " + pf);
    }

    private static VfMatcher indexBelow(int n) {
        return (vf, h) -> vf.index() < n ? Optional.empty() : Optional.of("VF index " + vf.index() + " >= " + n);
    }

    private static final VfMatcher RDMA = (vf, h) -> vf.rdmaDevices().isEmpty() ? Optional.of("no RDMA device")
            : Optional.empty();

    @Test
    void modelsEverVfWithItsPfIndexNumaAndRdmaDevice() {
        List<SriovVf> vfs = SriovVf.all(host.layer(), host.snapshot());

        assertThat(vfs).hasSize(16);
        SriovVf first = vfs.get(0);
        assertThat(first.id()).isEqualTo("0000:3b:00.2");
        assertThat(first.pf()).hasToString("0000:3b:00.0");
        assertThat(first.index()).isZero();
        assertThat(first.pfNetdevs()).containsExactly("ens1f0");
        assertThat(first.numaNode()).contains(0);
        assertThat(first.rdmaDevices()).containsExactly("mlx5_1");
        assertThat(first.netDevices()).containsExactly("ens1f0v0");
        assertThat(vfs.get(15)).satisfies(v -> {
            assertThat(v.id()).isEqualTo("0000:86:01.1");
            assertThat(v.index()).isEqualTo(7);
            assertThat(v.numaNode()).contains(1);
        });
    }

    @Test
    void theFirstMatchingPoolTakesAVfAndEveryVfSaysWhy() {
        PoolAssignment a = PoolAssignment.of(List.of(
                new PoolAssignment.Rule("low", indexBelow(4)),
                new PoolAssignment.Rule("pf0", pf("0000:3b:00.0"))), host.layer(), host.snapshot(), Map.of());

        assertThat(a.pool("low")).extracting(p -> p.vf().id()).containsExactly("0000:3b:00.2", "0000:3b:00.3",
                "0000:3b:00.4", "0000:3b:00.5", "0000:86:00.2", "0000:86:00.3", "0000:86:00.4", "0000:86:00.5");
        assertThat(a.pool("pf0")).extracting(p -> p.vf().id()).containsExactly("0000:3b:00.6", "0000:3b:00.7",
                "0000:3b:01.0", "0000:3b:01.1");
        assertThat(a.vfs()).containsEntry("0000:3b:00.2", "pool low")
                .containsEntry("0000:86:01.0",
                        "no pool: low: VF index 6 >= 4; pf0: PF 0000:86:00.0 is not 0000:3b:00.0");
    }

    @Test
    void aHeldVfGoesOnlyToAPoolOfTheResourceThatAllocatedIt() {
        List<PoolAssignment.Rule> rules = List.of(
                new PoolAssignment.Rule("low", "rdma/low", indexBelow(4)),
                new PoolAssignment.Rule("pf0", "rdma/pf0", pf("0000:3b:00.0")));
        PoolAssignment a = PoolAssignment.of(rules, host.layer(), host.snapshot(), Map.of(),
                Map.of("0000:3b:00.2", "rdma/pf0", "0000:3b:00.3", "rdma/gone"));

        assertThat(a.pool("pf0")).extracting(p -> p.vf().id()).startsWith("0000:3b:00.2", "0000:3b:00.6");
        assertThat(a.pool("low")).extracting(p -> p.vf().id()).doesNotContain("0000:3b:00.2", "0000:3b:00.3");
        assertThat(a.vfs()).containsEntry("0000:3b:00.2", "pool pf0")
                .containsEntry("0000:3b:00.3", "no pool: low: allocated as rdma/gone; pf0: allocated as rdma/gone");
    }

    @Test
    void aVfWhosePortIsDownIsPooledButUnhealthy() {
        PoolAssignment a = PoolAssignment.of(List.of(new PoolAssignment.Rule("pf0", pf("0000:3b:00.0"))), host.layer(), host.snapshot(), Map.of());

        PooledVf vf7 = a.pool("pf0").get(7);
        assertThat(vf7.vf().id()).isEqualTo("0000:3b:01.1");
        assertThat(vf7.unhealthy()).hasValueSatisfying(r -> assertThat(r).contains("mlx5_8").contains("DOWN"));
        assertThat(a.pool("pf0").subList(0, 7)).allMatch(PooledVf::healthy);
        assertThat(a.vfs().get("0000:3b:01.1")).startsWith("pool pf0, unhealthy: ");
    }

    @Test
    void aPfLinkDownMakesAllItsVfsUnhealthy() {
        host.portState("mlx5_0", 1, "1: DOWN");
        PoolAssignment a = PoolAssignment.of(List.of(new PoolAssignment.Rule("all", RDMA)), host.layer(), host.rescan(), Map.of());

        assertThat(a.pool("all")).hasSize(16);
        assertThat(a.pool("all").subList(0, 8)).allSatisfy(p -> assertThat(p.unhealthy())
                .hasValueSatisfying(r -> assertThat(r).startsWith("PF 0000:3b:00.0 link down")));
        assertThat(a.pool("all").subList(8, 15)).allMatch(PooledVf::healthy);
    }

    @Test
    void remembersRdmaDevicesAndKeepsAVfWhoseDeviceIsInAPodNetns() {
        host.netnsMode(NetnsMode.Mode.EXCLUSIVE);
        PoolAssignment before = PoolAssignment.of(List.of(new PoolAssignment.Rule("rdma", RDMA)), host.layer(), host.rescan(),
                Map.of());
        assertThat(before.ledger()).hasSize(16).containsKey("0000:3b:00.2");
        assertThat(before.ledger().get("0000:3b:00.2").nodes()).extracting(VfRdma.Node::kind)
                .containsExactly("uverbs", "umad", "issm");

        host.moveRdmaToPod("0000:3b:00.2", "mlx5_1");
        HostSnapshot moved = host.rescan();
        assertThat(PoolAssignment.of(List.of(new PoolAssignment.Rule("rdma", RDMA)), host.layer(), moved, Map.of()).vfs())
                .containsEntry("0000:3b:00.2", "no pool: rdma: no RDMA device");   // what the peer does

        PoolAssignment after = PoolAssignment.of(List.of(new PoolAssignment.Rule("rdma", RDMA)), host.layer(), moved,
                before.ledger());
        PooledVf vf = after.pool("rdma").get(0);
        assertThat(vf.inPodNetns()).isTrue();
        assertThat(vf.healthy()).isTrue();
        assertThat(vf.rdma()).hasValueSatisfying(r -> assertThat(r.device()).isEqualTo("mlx5_1"));
        assertThat(after.ledger()).isEqualTo(before.ledger());
        assertThat(after.vfs().get("0000:3b:00.2")).contains("mlx5_1 in a pod netns");
    }

    @Test
    void outsideExclusiveModeAVanishedRdmaDeviceIsUnhealthy() {
        PoolAssignment before = PoolAssignment.of(List.of(new PoolAssignment.Rule("rdma", RDMA)), host.layer(), host.snapshot(),
                Map.of());
        host.moveRdmaToPod("0000:3b:00.2", "mlx5_1");

        PoolAssignment after = PoolAssignment.of(List.of(new PoolAssignment.Rule("rdma", RDMA)), host.layer(), host.rescan(),
                before.ledger());

        assertThat(after.pool("rdma").get(0).unhealthy()).contains("RDMA device mlx5_1 gone from the host");
    }

    @Test
    void vfsThatDisappearLeaveThePoolAndTheLedger() {
        PoolAssignment before = PoolAssignment.of(List.of(new PoolAssignment.Rule("rdma", RDMA)), host.layer(), host.snapshot(),
                Map.of());
        host.numVfs("0000:3b:00.0", 2);

        PoolAssignment after = PoolAssignment.of(List.of(new PoolAssignment.Rule("rdma", RDMA)), host.layer(), host.rescan(),
                before.ledger());

        assertThat(after.pool("rdma")).hasSize(10);
        assertThat(after.ledger()).hasSize(10).doesNotContainKey("0000:3b:00.4");
        host.numVfs("0000:3b:00.0", 8);
        assertThat(PoolAssignment.of(List.of(new PoolAssignment.Rule("rdma", RDMA)), host.layer(), host.rescan(), Map.of())
                .pool("rdma")).hasSize(16);
    }
}
