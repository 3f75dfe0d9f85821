// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.CharDevice.DeviceNumber;
import io.rdmanode.discovery.Gid;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetDevice;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaPort;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SysfsTopologySourceTest {

    @TempDir
    Path tmp;

    private HostSnapshot scan(String host) {
        SysfsRoot root = SysfsFixture.unpack(host, tmp);
        return new SysfsTopologySource(root, () -> NetnsMode.unknown("test")).scan();
    }

    @Test
    void readsConnectX5SriovHost() {
        HostSnapshot s = scan("cx5-roce-sriov");

        assertThat(s.problems()).isEmpty();
        assertThat(s.devices()).hasSize(18);
        assertThat(s.pciFunctions()).hasSize(18);
        PciFunction pf0 = s.pciFunction(PciAddress.parse("0000:3b:00.0").orElseThrow()).orElseThrow();
        assertThat(pf0.vendor()).isEqualTo("15b3");
        assertThat(pf0.device()).isEqualTo("1017");
        assertThat(pf0.pciClass()).isEqualTo("020000");
        assertThat(pf0.driver()).contains("mlx5_core");
        assertThat(pf0.numaNode()).contains(0);
        assertThat(pf0.iommuGroup()).contains("40");
        assertThat(pf0.sriov().orElseThrow().numVfs()).isEqualTo(8);
        assertThat(pf0.sriov().orElseThrow().virtualFunctions()).hasSize(8)
                .first().satisfies(vf -> assertThat(vf.address()).hasToString("0000:3b:00.2"));
        assertThat(pf0.rdmaDevices()).containsExactly("mlx5_0");
        assertThat(pf0.netDevices()).containsExactly("ens1f0");
        PciFunction vf7 = s.pciFunction(PciAddress.parse("0000:86:01.1").orElseThrow()).orElseThrow();
        assertThat(vf7.device()).isEqualTo("1018");
        assertThat(vf7.physicalFunction()).map(PciAddress::toString).contains("0000:86:00.0");
        assertThat(vf7.vfIndex()).contains(7);
        assertThat(vf7.numaNode()).contains(1);
        assertThat(vf7.sriov()).isEmpty();
    }

    @Test
    void readsRoceDeviceWithPortsGidsCountersAndCharDevices() {
        HostSnapshot s = scan("cx5-roce-sriov");

        RdmaDevice d = s.device("mlx5_0").orElseThrow();
        assertThat(d.nodeType()).isEqualTo(RdmaDevice.NodeType.CA);
        assertThat(d.fwVersion()).contains("16.35.2000");
        assertThat(d.driver()).contains("mlx5_core");
        assertThat(d.pciFunction()).map(PciAddress::toString).contains("0000:3b:00.0");
        assertThat(d.uverbs().present()).isTrue();
        assertThat(d.uverbs().number()).contains(new DeviceNumber(231, 192));
        assertThat(d.uverbs().path()).isEqualTo(tmp.resolve("dev/infiniband/uverbs0"));
        RdmaPort p = d.port(1).orElseThrow();
        assertThat(p.state()).isEqualTo(RdmaPort.PortState.ACTIVE);
        assertThat(p.physState()).isEqualTo(RdmaPort.PhysState.LINK_UP);
        assertThat(p.linkLayer()).isEqualTo(RdmaPort.LinkLayer.ETHERNET);
        assertThat(p.rate()).contains("100 Gb/sec (4X EDR)");
        assertThat(p.gids()).extracting(Gid::index, Gid::type, Gid::netdev).containsExactly(
                org.assertj.core.groups.Tuple.tuple(0, Gid.Type.ROCE_V1, Optional.of("ens1f0")),
                org.assertj.core.groups.Tuple.tuple(1, Gid.Type.ROCE_V2, Optional.of("ens1f0")));
        assertThat(p.netdev()).contains("ens1f0");
        assertThat(p.counterFiles()).hasSize(FixtureHosts.PMA_COUNTERS.size())
                .anySatisfy(f -> assertThat(f).hasFileName("port_rcv_data"));
        assertThat(p.hwCounterFiles()).anySatisfy(f -> assertThat(f).hasFileName("out_of_buffer"));
        assertThat(p.umad().number()).contains(new DeviceNumber(231, 0));
        assertThat(p.issm().number()).contains(new DeviceNumber(231, 64));
        assertThat(s.device("mlx5_8").orElseThrow().port(1).orElseThrow().state()).isEqualTo(RdmaPort.PortState.DOWN);
        assertThat(s.rdmaCm().present()).isTrue();
    }

    @Test
    void linksNetdevsToPciFunctionAndRdmaDevice() {
        HostSnapshot s = scan("cx5-roce-sriov");

        NetDevice vf = s.netDevice("ens2f0v3").orElseThrow();
        assertThat(vf.linkType()).isEqualTo(NetDevice.LinkType.ETHER);
        assertThat(vf.pciFunction()).map(PciAddress::toString).contains("0000:86:00.5");
        assertThat(vf.rdmaDevice()).contains("mlx5_13");
        assertThat(vf.mac()).contains("b8:59:9f:a0:01:04");
        assertThat(s.netDevice("lo").orElseThrow().linkType()).isEqualTo(NetDevice.LinkType.LOOPBACK);
        assertThat(s.netDevice("ens1f0v7").orElseThrow().operState()).isEqualTo("down");
    }

    @Test
    void readsInfinibandHca() {
        HostSnapshot s = scan("cx6-ib");

        assertThat(s.problems()).isEmpty();
        RdmaPort p = s.device("mlx5_0").orElseThrow().port(1).orElseThrow();
        assertThat(p.linkLayer()).isEqualTo(RdmaPort.LinkLayer.INFINIBAND);
        assertThat(p.lid()).contains(0x1a);
        assertThat(p.rate()).contains("200 Gb/sec (4X HDR)");
        assertThat(p.gids()).singleElement().satisfies(g -> {
            assertThat(g.type()).isEqualTo(Gid.Type.IB);
            assertThat(g.netdev()).isEmpty();
        });
        assertThat(p.netdev()).isEmpty();
        NetDevice ib0 = s.netDevice("ib0").orElseThrow();
        assertThat(ib0.linkType()).isEqualTo(NetDevice.LinkType.INFINIBAND);
        assertThat(ib0.rdmaDevice()).contains("mlx5_0");
        assertThat(s.pciFunctions()).singleElement().satisfies(f -> {
            assertThat(f.pciClass()).isEqualTo("020700");
            assertThat(f.sriov()).isEmpty();
        });
    }

    @Test
    void readsSoftRoceHostWithoutPciFunctions() {
        HostSnapshot s = scan("rxe");

        assertThat(s.problems()).isEmpty();
        assertThat(s.pciFunctions()).isEmpty();
        RdmaDevice rxe0 = s.device("rxe0").orElseThrow();
        assertThat(rxe0.pciFunction()).isEmpty();
        assertThat(rxe0.fwVersion()).isEmpty();
        assertThat(rxe0.parentNetdev()).contains("tb0");
        assertThat(rxe0.uverbs().number()).contains(new DeviceNumber(231, 192));
        assertThat(s.device("rxe1").orElseThrow().uverbs().number()).contains(new DeviceNumber(231, 193));
        RdmaPort p = rxe0.port(1).orElseThrow();
        assertThat(p.counterFiles()).isEmpty();
        assertThat(p.hwCounterFiles()).hasSize(FixtureHosts.RXE_HW_COUNTERS.size());
        assertThat(p.gids()).extracting(Gid::type).containsOnly(Gid.Type.ROCE_V2);
        assertThat(p.rate()).contains("10 Gb/sec (1X FDR10)");
        assertThat(s.netDevice("tb0").orElseThrow().rdmaDevice()).contains("rxe0");
        assertThat(s.netDevice("tb1").orElseThrow().pciFunction()).isEmpty();
    }
}
