// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.Gid;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.Problem;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaPort;
import io.rdmanode.discovery.internal.sysfs.SysfsRoot;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import io.rdmanode.agent.Ttar;
import io.rdmanode.verbs.IbvDevice;
import io.rdmanode.verbs.IbvDeviceListing;
import io.rdmanode.verbs.IbvGid;
import io.rdmanode.verbs.IbvPort;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Verbs answers (as libibverbs gives them for the testbed's rxe0, see ibv_devinfo in the testbed's
 * sysfs-rxe-reference.txt) merged with the recorded rxe host's sysfs tree.
 */
class VerbsSysfsMergeTest {

    private static final String GID0 = "fe80:0000:0000:0000:c043:e3ff:fec8:a6d0";
    private static final String GID1 = "0000:0000:0000:0000:0000:ffff:a9fe:4d01";

    private HostSnapshot sysfs;

    @BeforeEach
    void unpackTheRecordedRxeHost(@TempDir Path dir) throws Exception {
        Ttar.unpack(Path.of(getClass().getResource("/fixtures/sysfs/rxe.ttar").toURI()), dir);
        sysfs = new SysfsTopologySource(new SysfsRoot(dir.resolve("sys"), dir.resolve("dev")),
                () -> NetnsMode.unknown("recording")).scan();
    }

    @Test
    void describesPortsFromVerbsAndTheRestFromSysfs() {
        int tb0 = sysfs.netDevice("tb0").orElseThrow().ifindex();
        IbvDevice rxe0 = rxe("rxe0", List.of(new IbvGid(0, GID0, Optional.of(2), tb0),
                new IbvGid(1, GID1, Optional.of(2), tb0)));

        VerbsSysfsMerge.Result r = VerbsSysfsMerge.merge(listing(List.of(rxe0), Map.of()), sysfs);

        RdmaDevice d = r.devices().get(0);
        RdmaDevice fromSysfs = sysfs.device("rxe0").orElseThrow();
        assertThat(d.nodeGuid()).contains("c043:e3ff:fec8:a6d0");
        assertThat(d.fwVersion()).contains("0.0.0");
        assertThat(d.nodeType()).isEqualTo(fromSysfs.nodeType());
        assertThat(d.parentNetdev()).contains("tb0");
        assertThat(d.uverbs()).isEqualTo(fromSysfs.uverbs());
        RdmaPort p = d.port(1).orElseThrow();
        assertThat(p).usingRecursiveComparison().isEqualTo(fromSysfs.port(1).orElseThrow());
        assertThat(p.gids()).extracting(Gid::type).containsOnly(Gid.Type.ROCE_V2);
        assertThat(r.problems()).extracting(Problem::object).containsExactly("rdma device rxe1");
        assertThat(r.problems().get(0).message()).contains("libibverbs does not");
    }

    @Test
    void withoutGidTypesTakesGidNetdevsFromSysfs() {
        IbvDevice rxe0 = rxe("rxe0", List.of(new IbvGid(0, GID0, Optional.empty(), 0)));

        RdmaPort p = VerbsSysfsMerge.merge(listing(List.of(rxe0), Map.of()), sysfs).devices().get(0)
                .port(1).orElseThrow();

        assertThat(p.gids()).containsExactly(new Gid(0, GID0, Gid.Type.UNKNOWN, Optional.of("tb0")));
        assertThat(p.netdev()).contains("tb0");
    }

    @Test
    void takesTheKernelsRateWhenTheSpeedIsNotInTheCompatPortAttr() {
        IbvPort xdr = new IbvPort(1, 4, 5, IbvPort.LINK_LAYER_ETHERNET, 5, 3, 1024, 0, 1, 0,
                List.of());
        IbvDevice rxe0 = new IbvDevice("rxe0", "c043:e3ff:fec8:a6d0", "c043:e3ff:fec8:a6d0", "0.0.0", 0xffffff,
                0, 0, 1, List.of(xdr));

        RdmaPort p = VerbsSysfsMerge.merge(listing(List.of(rxe0), Map.of()), sysfs).devices().get(0)
                .port(1).orElseThrow();

        assertThat(p.rate()).contains("10 Gb/sec (1X FDR10)");
    }

    @Test
    void reportsDevicesOnlyOneSideKnowsAndDevicesThatFailed() {
        IbvDevice ghost = rxe("mlx5_9", List.of());

        VerbsSysfsMerge.Result r = VerbsSysfsMerge.merge(listing(List.of(ghost),
                Map.of("rxe1", "ibv_open_device rxe1: Permission denied (errno 13)")), sysfs);

        assertThat(r.devices()).isEmpty();
        assertThat(r.problems()).extracting(Problem::object)
                .containsExactly("rdma device mlx5_9", "rdma device rxe0", "rdma device rxe1");
        assertThat(r.problems()).extracting(Problem::message).anySatisfy(m -> assertThat(m)
                .isEqualTo("ibv_open_device rxe1: Permission denied (errno 13)"));
    }

    /** rxe0 as ibv_devinfo -v shows it on the testbed: port 1 ACTIVE, LinkUp, Ethernet, 1X at FDR10 code 8. */
    private static IbvDevice rxe(String name, List<IbvGid> gids) {
        IbvPort port = new IbvPort(1, 4, 5, IbvPort.LINK_LAYER_ETHERNET, 5, 3, 1024, 0, 1, 8,
                gids);
        return new IbvDevice(name, "c043:e3ff:fec8:a6d0", "c043:e3ff:fec8:a6d0", "0.0.0", 0xffffff, 0, 0,
                1048560, List.of(port));
    }

    private static IbvDeviceListing listing(List<IbvDevice> devices, Map<String, String> failures) {
        return new IbvDeviceListing(devices, failures);
    }
}
