// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetDevice;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.RdmaDevice;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #8 item 10: a bonded RDMA device names every member of its bond, and a soft RDMA device's hardware
 * facts come from its parent netdev's PCI function. Fixtures: {@code cx7-roce-bond.ttar} and
 * {@code rxe-on-pci-nic.ttar} (constructed, see their PROVENANCE.md).
 */
class BondAndSoftDeviceParentTest {

    @TempDir
    Path tmp;

    private HostSnapshot scan(String host) {
        return new SysfsTopologySource(SysfsFixture.unpack(host, tmp), () -> NetnsMode.unknown("test")).scan();
    }

    @Test
    void aBondedDeviceListsTheBondAndAllItsMembers() {
        HostSnapshot s = scan("cx7-roce-bond");

        RdmaDevice bond = s.device("mlx5_bond_0").orElseThrow();
        assertThat(bond.netDevices()).containsExactly("bond0", "ens1f0np0", "ens1f1np1");
        assertThat(bond.port(1).orElseThrow().netdev()).contains("bond0");
        assertThat(bond.pciFunction()).contains(PciAddress.parse("0000:17:00.0").orElseThrow());
        NetDevice bond0 = s.netDevice("bond0").orElseThrow();
        assertThat(bond0.isBond()).isTrue();
        assertThat(bond0.bondMembers()).containsExactly("ens1f0np0", "ens1f1np1");
        assertThat(bond0.rdmaDevice()).contains("mlx5_bond_0");
        for (String member : List.of("ens1f0np0", "ens1f1np1")) {
            NetDevice n = s.netDevice(member).orElseThrow();
            assertThat(n.bondMaster()).as(member).contains("bond0");
            assertThat(n.rdmaDevice()).as("a pool naming %s matches the bonded device", member).contains("mlx5_bond_0");
            assertThat(n.isBond()).isFalse();
        }
        assertThat(s.problems()).isEmpty();
    }

    @Test
    void bondMembersComeFromLowerLinksWhenBondingSlavesIsMissing() throws Exception {
        SysfsRoot root = SysfsFixture.unpack("cx7-roce-bond", tmp);
        Files.delete(root.classNet().resolve("bond0").toRealPath().resolve("bonding/slaves"));

        HostSnapshot s = new SysfsTopologySource(root, () -> NetnsMode.unknown("test")).scan();

        assertThat(s.netDevice("bond0").orElseThrow().bondMembers()).containsExactly("ens1f0np0", "ens1f1np1");
        assertThat(s.device("mlx5_bond_0").orElseThrow().netDevices())
                .containsExactly("bond0", "ens1f0np0", "ens1f1np1");
    }

    @Test
    void aSoftDeviceTakesVendorDriverAndNumaFromItsParentsPciFunction() {
        HostSnapshot s = scan("rxe-on-pci-nic");

        RdmaDevice rxe = s.device("rxe0").orElseThrow();
        assertThat(rxe.pciFunction()).as("rxe itself is virtual").isEmpty();
        assertThat(rxe.parentNetdev()).contains("eth0");
        assertThat(rxe.netDevices()).containsExactly("eth0");
        PciAddress nic = PciAddress.parse("0000:5e:00.0").orElseThrow();
        assertThat(rxe.parentPciFunction()).contains(nic);
        PciFunction f = s.pciFunctionOf(rxe).orElseThrow();
        assertThat(f.vendor()).isEqualTo("8086");
        assertThat(f.device()).isEqualTo("1572");
        assertThat(f.driver()).contains("i40e");
        assertThat(f.numaNode()).contains(1);
        assertThat(s.netDevice("eth0").orElseThrow().rdmaDevice()).contains("rxe0");
    }

    @Test
    void aSoftDeviceOnAVirtualNetdevHasNoPciFunction() {
        HostSnapshot s = scan("rxe");

        RdmaDevice rxe0 = s.device("rxe0").orElseThrow();
        assertThat(rxe0.parentPciFunction()).isEmpty();
        assertThat(s.pciFunctionOf(rxe0)).isEqualTo(Optional.empty());
        assertThat(rxe0.netDevices()).containsExactly("tb0");
    }

    @Test
    void anUnbondedDeviceKeepsItsOwnNetdevsOnly() {
        HostSnapshot s = scan("cx5-roce-sriov");

        assertThat(s.device("mlx5_0").orElseThrow().netDevices()).containsExactly("ens1f0");
        assertThat(s.netDevices()).allSatisfy(n -> assertThat(n.bondMaster()).isEmpty());
    }
}
