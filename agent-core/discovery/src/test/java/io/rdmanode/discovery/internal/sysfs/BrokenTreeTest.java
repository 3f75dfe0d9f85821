// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.Problem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;

/** Broken recordings: each breaks one object; it is reported with a clear message, the others stay. */
class BrokenTreeTest {

    interface Breakage {
        void apply(Path sys) throws IOException;
    }

    @TempDir
    Path tmp;

    static Stream<Arguments> breakages() {
        String dev3 = "class/infiniband/mlx5_3/";
        return Stream.of(
                Arguments.of("missing node_type", (Breakage) s -> Files.delete(s.resolve(dev3 + "node_type")),
                        "rdma device mlx5_3", "cannot read ", "mlx5_3/node_type: No such file or directory", 17),
                Arguments.of("garbage node_type", (Breakage) s -> Files.writeString(s.resolve(dev3 + "node_type"), "CA\n"),
                        "rdma device mlx5_3", "cannot parse ", "expected '<code>: <NAME>', got 'CA'", 17),
                Arguments.of("garbage port state", (Breakage) s -> Files.writeString(s.resolve(dev3 + "ports/1/state"), "ACTIVE\n"),
                        "rdma device mlx5_3", "ports/1/state", "got 'ACTIVE'", 17),
                Arguments.of("unknown link layer", (Breakage) s -> Files.writeString(s.resolve(dev3 + "ports/1/link_layer"), "Token Ring\n"),
                        "rdma device mlx5_3", "link_layer", "expected InfiniBand or Ethernet, got 'Token Ring'", 17),
                Arguments.of("missing ports", (Breakage) s -> deleteTree(s.resolve(dev3 + "ports").toRealPath()),
                        "rdma device mlx5_3", "ports", "no port directories", 17),
                Arguments.of("dangling class link", (Breakage) s -> Files.createSymbolicLink(
                        s.resolve("class/infiniband/mlx5_99"), Path.of("../../devices/virtual/infiniband/gone")),
                        "rdma device mlx5_99", "cannot resolve", "dangling link to ../../devices/virtual/infiniband/gone", 18),
                Arguments.of("garbage pci vendor", (Breakage) s -> Files.writeString(s.resolve("bus/pci/devices/0000:3b:00.3/vendor"), "15b3\n"),
                        "pci 0000:3b:00.3", "vendor", "expected a 0x-prefixed hex id, got '15b3'", 18),
                Arguments.of("dangling virtfn", (Breakage) s -> {
                    deleteTree(s.resolve("bus/pci/devices/0000:86:00.5").toRealPath());
                }, "pci 0000:86:00.0", "virtfn3", "dangling link", 17),
                Arguments.of("garbage sriov_numvfs", (Breakage) s -> Files.writeString(s.resolve("bus/pci/devices/0000:3b:00.0/sriov_numvfs"), "eight\n"),
                        "pci 0000:3b:00.0", "sriov_numvfs", "expected an integer, got 'eight'", 18),
                Arguments.of("garbage ifindex", (Breakage) s -> Files.writeString(s.resolve("class/net/ens1f0v2/ifindex"), "-\n"),
                        "netdev ens1f0v2", "ifindex", "expected an integer, got '-'", 18),
                Arguments.of("garbage uverbs dev", (Breakage) s -> Files.writeString(
                        s.resolve("class/infiniband_verbs/uverbs4/dev"), "231\n"),
                        "rdma device mlx5_4", "uverbs4/dev", "expected major:minor, got '231'", 17));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("breakages")
    void reportsTheBrokenObjectAndKeepsTheOthers(String what, Breakage breakage, String object, String pathPart,
                                                 String reason, int devicesLeft) throws IOException {
        SysfsRoot root = SysfsFixture.unpack("cx5-roce-sriov", tmp);
        breakage.apply(root.sys());

        HostSnapshot s = new SysfsTopologySource(root, () -> NetnsMode.unknown("test")).scan();

        assertThat(s.problems()).extracting(Problem::object).contains(object);
        assertThat(s.problems()).filteredOn(p -> p.object().equals(object)).singleElement()
                .satisfies(p -> assertThat(p.message()).contains(pathPart).contains(reason));
        assertThat(s.devices()).hasSize(devicesLeft);
        assertThat(s.netDevices()).hasSizeGreaterThanOrEqualTo(18);
    }

    @org.junit.jupiter.api.Test
    void missingNodesAreExplicitlyAbsentNotDropped() throws IOException {
        SysfsRoot root = SysfsFixture.unpack("cx5-roce-sriov", tmp);
        Files.delete(root.dev().resolve("infiniband/uverbs2"));
        deleteTree(root.sys().resolve("class/infiniband_mad/umad2").toRealPath());
        Files.delete(root.sys().resolve("class/infiniband_mad/umad2"));
        Files.delete(root.sys().resolve("class/misc/rdma_cm"));
        Files.delete(root.sys().resolve("class/infiniband/mlx5_2/fw_ver").toRealPath());

        HostSnapshot s = new SysfsTopologySource(root, () -> NetnsMode.unknown("test")).scan();

        assertThat(s.problems()).isEmpty();
        var d = s.device("mlx5_2").orElseThrow();
        assertThat(d.fwVersion()).isEmpty();
        assertThat(d.uverbs().present()).isFalse();
        assertThat(d.uverbs().absentReason()).hasValueSatisfying(r -> assertThat(r).contains("uverbs2 does not exist"));
        assertThat(d.uverbs().number()).hasValueSatisfying(n -> assertThat(n).hasToString("231:194"));
        assertThat(d.port(1).orElseThrow().umad().absentReason())
                .hasValueSatisfying(r -> assertThat(r).contains("no infiniband_mad umad entry for mlx5_2 port 1"));
        assertThat(d.port(1).orElseThrow().issm().present()).isTrue();
        assertThat(s.rdmaCm().absentReason()).hasValueSatisfying(r -> assertThat(r).contains("rdma_ucm"));
    }

    static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
