// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.RdmaPort;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Candidate devices of the recorded ConnectX-5 host at both granularities, and of hosts edited the way SR-IOV does. */
class CandidatesTest {

    static final DevicePluginLayer LAYER = new io.rdmanode.deviceplugin.internal.Layer(new LayerSettings(DevicePaths.DEFAULT, List.of()));
    static final String VF1 = "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.3";

    @TempDir
    Path dir;

    @Test
    void oneHcaPerRdmaDeviceWithPciPortsNetdevsAndCharacterDevices() {
        RecordedHostDiscovery host = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir);
        List<CandidateDevice> hcas = LAYER.candidates(host.snapshot(), Granularity.HCA);

        assertThat(hcas).hasSize(18);
        CandidateDevice mlx50 = hcas.stream().filter(c -> c.key().equals("mlx5_0")).findFirst().orElseThrow();
        assertThat(mlx50.pci().orElseThrow().address()).isEqualTo(PciAddress.parse("0000:3b:00.0").orElseThrow());
        assertThat(mlx50.pci().orElseThrow().isVirtualFunction()).isFalse();
        assertThat(mlx50.numaNode()).hasValue(0);
        assertThat(mlx50.rdma().orElseThrow().ports()).extracting(RdmaPort::linkLayer)
                .containsExactly(RdmaPort.LinkLayer.ETHERNET);
        assertThat(mlx50.netdevNames()).containsExactly("ens1f0");
        assertThat(mlx50.deviceFiles()).extracting(DeviceFile::relativePath)
                .containsExactly("infiniband/uverbs0", "infiniband/umad0", "infiniband/issm0");
        assertThat(mlx50.health().usable()).isTrue();
        assertThat(LAYER.rdmaCm(host.snapshot()).relativePath()).isEqualTo("infiniband/rdma_cm");
    }

    @Test
    void oneCandidatePerVfWithItsIndexParentPfAndPfNetdev() {
        RecordedHostDiscovery host = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir);
        List<CandidateDevice> vfs = LAYER.candidates(host.snapshot(), Granularity.VF);

        assertThat(vfs).hasSize(16).allSatisfy(c -> assertThat(c.granularity()).isEqualTo(Granularity.VF));
        CandidateDevice vf0 = vfs.get(0);
        PciInfo p = vf0.pci().orElseThrow();
        assertThat(vf0.key()).isEqualTo("0000:3b:00.2");
        assertThat(p.vfIndex()).hasValue(0);
        assertThat(p.physicalFunction()).hasValue(PciAddress.parse("0000:3b:00.0").orElseThrow());
        assertThat(p.pfNetdevs()).containsExactly("ens1f0");
        assertThat(p.driver()).hasValue("mlx5_core");
        assertThat(vf0.rdma().orElseThrow().name()).isEqualTo("mlx5_1");
        assertThat(vf0.rdmaPresence()).isEqualTo(RdmaPresence.PRESENT);
        assertThat(vf0.netdevNames()).containsExactly("ens1f0v0");
        assertThat(LAYER.candidates(host.snapshot(), Granularity.PCI_FUNCTION)).hasSize(18);
    }

    @Test
    void aVfBoundToVfioPciHasNoRdmaAndGetsItsVfioNodes() throws IOException {
        RecordedHostDiscovery host = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir);
        Path fn = dir.resolve(VF1);
        Files.delete(fn.resolve("driver"));
        Files.createDirectories(dir.resolve("sys/bus/pci/drivers/vfio-pci"));
        Files.createSymbolicLink(fn.resolve("driver"), Path.of("../../../../bus/pci/drivers/vfio-pci"));
        deleteTree(fn.resolve("infiniband"));
        deleteTree(fn.resolve("net"));
        Files.deleteIfExists(dir.resolve("sys/class/infiniband/mlx5_2"));
        Files.deleteIfExists(dir.resolve("sys/class/net/ens1f0v1"));

        CandidateDevice vf1 = LAYER.candidates(host.rescan(), Granularity.VF).stream()
                .filter(c -> c.key().equals("0000:3b:00.3")).findFirst().orElseThrow();

        assertThat(vf1.pci().orElseThrow().driver()).hasValue("vfio-pci");
        assertThat(vf1.rdma()).isEmpty();
        assertThat(vf1.rdmaPresence()).isEqualTo(RdmaPresence.NONE);
        assertThat(vf1.isRdma()).isFalse();
        assertThat(vf1.deviceFiles()).extracting(DeviceFile::relativePath).containsExactly("vfio/vfio", "vfio/42");
        assertThat(LAYER.paths().nodes(vf1.deviceFiles(), "rw")).extracting(n -> n.containerPath())
                .containsExactly("/dev/vfio/vfio", "/dev/vfio/42");
    }

    @Test
    void aVfWhoseRdmaDeviceMovedIntoAPodInExclusiveModeStillCountsAsRdma() throws IOException {
        RecordedHostDiscovery host = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir);
        host.netnsMode(NetnsMode.Mode.EXCLUSIVE);
        Path fn = dir.resolve(VF1);
        deleteTree(fn.resolve("infiniband"));
        deleteTree(fn.resolve("net"));
        Files.deleteIfExists(dir.resolve("sys/class/infiniband/mlx5_2"));
        Files.deleteIfExists(dir.resolve("sys/class/net/ens1f0v1"));

        List<CandidateDevice> vfs = LAYER.candidates(host.rescan(), Granularity.VF);
        CandidateDevice vf1 = vfs.stream().filter(c -> c.key().equals("0000:3b:00.3")).findFirst().orElseThrow();

        assertThat(vf1.rdma()).isEmpty();
        assertThat(vf1.rdmaPresence()).isEqualTo(RdmaPresence.OTHER_NAMESPACE);
        Selectors rdmaOnly = new Selectors(List.of(), List.of(), List.of(), List.of(), List.of(),
                Selectors.pfSelectors("pfNames", List.of("ens1f0")), List.of(), List.of(), Optional.of(true));
        assertThat(rdmaOnly.select(vfs).matchedKeys()).hasSize(8).contains("0000:3b:00.3");
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(p)) {
            for (Path f : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }
}
