// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.rdmanode.deviceplugin.DeviceFile;
import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Allocate contents on the recorded ConnectX-5: RDMA and vfio nodes with host paths under the node's /dev (here
 * {@code /node/dev}, as a DaemonSet mounting it elsewhere would set) and container paths under /dev, the
 * PCIDEVICE env and its _INFO JSON.
 */
class VfAllocatorTest {

    private static final DevicePaths NODE = new DevicePaths(Path.of("/node/dev"));
    private static final VfAllocator ALLOCATOR = new VfAllocator("rdma", "sriov-a.x", NODE);

    @TempDir
    Path dir;

    private Map<String, PooledVf> vfs(SriovHost host) {
        DevicePluginLayer layer = io.rdmanode.deviceplugin.testing.DevicePluginTesting.layer(new LayerSettings(NODE, List.of()));
        PoolAssignment a = PoolAssignment.of(List.of(new PoolAssignment.Rule("all", (vf, h) -> Optional.empty())),
                layer, host.snapshot(), Map.of());
        return a.pool("all").stream().collect(java.util.stream.Collectors.toMap(p -> p.vf().id(), p -> p));
    }

    @Test
    void handsOutEachVfsRdmaNodesAndRdmaCmOnceWithContainerPathsUnderDev() {
        SriovHost host = SriovHost.recorded(dir);
        Map<String, PooledVf> vfs = vfs(host);

        ContainerAllocation a = ALLOCATOR.allocate(List.of(vfs.get("0000:3b:00.2"), vfs.get("0000:3b:00.3")),
                io.rdmanode.deviceplugin.testing.DevicePluginTesting.layer(LayerSettings.DEFAULT).rdmaCm(host.snapshot()));

        assertThat(a.devices()).extracting(DeviceNode::containerPath, DeviceNode::hostPath, DeviceNode::permissions)
                .containsExactly(
                        tuple("/dev/infiniband/uverbs1", "/node/dev/infiniband/uverbs1", "rw"),
                        tuple("/dev/infiniband/umad1", "/node/dev/infiniband/umad1", "rw"),
                        tuple("/dev/infiniband/issm1", "/node/dev/infiniband/issm1", "rw"),
                        tuple("/dev/infiniband/uverbs2", "/node/dev/infiniband/uverbs2", "rw"),
                        tuple("/dev/infiniband/umad2", "/node/dev/infiniband/umad2", "rw"),
                        tuple("/dev/infiniband/issm2", "/node/dev/infiniband/issm2", "rw"),
                        tuple("/dev/infiniband/rdma_cm", "/node/dev/infiniband/rdma_cm", "rw"));
        assertThat(a.envs()).containsEntry("PCIDEVICE_RDMA_SRIOV_A_X", "0000:3b:00.2,0000:3b:00.3");
        assertThat(a.envs().get("PCIDEVICE_RDMA_SRIOV_A_X_INFO")).isEqualTo("{"
                + "\"0000:3b:00.2\":{\"generic\":{\"deviceID\":\"0000:3b:00.2\"},\"rdma\":{\"rdma_dev\":\"mlx5_1\","
                + "\"uverbs\":\"/dev/infiniband/uverbs1\",\"umad\":\"/dev/infiniband/umad1\","
                + "\"issm\":\"/dev/infiniband/issm1\",\"rdma_cm\":\"/dev/infiniband/rdma_cm\"}},"
                + "\"0000:3b:00.3\":{\"generic\":{\"deviceID\":\"0000:3b:00.3\"},\"rdma\":{\"rdma_dev\":\"mlx5_2\","
                + "\"uverbs\":\"/dev/infiniband/uverbs2\",\"umad\":\"/dev/infiniband/umad2\","
                + "\"issm\":\"/dev/infiniband/issm2\",\"rdma_cm\":\"/dev/infiniband/rdma_cm\"}}}");
        assertThat(a.mounts()).isEmpty();
        assertThat(a.annotations()).isEmpty();
    }

    @Test
    void givesVfioVfsTheContainerAndTheirIommuGroupOnce() {
        SriovHost host = SriovHost.recorded(dir);
        host.bindVfio("0000:86:00.2", "mlx5_10", "ens2f0v0");
        host.bindVfio("0000:86:00.3", "mlx5_11", "ens2f0v1");
        host.rescan();
        Map<String, PooledVf> vfs = vfs(host);

        ContainerAllocation a = ALLOCATOR.allocate(List.of(vfs.get("0000:86:00.2"), vfs.get("0000:86:00.3")),
                io.rdmanode.deviceplugin.testing.DevicePluginTesting.layer(LayerSettings.DEFAULT).rdmaCm(host.snapshot()));

        assertThat(vfs.get("0000:86:00.2").healthy()).isTrue();
        assertThat(a.devices()).extracting(DeviceNode::containerPath, DeviceNode::hostPath).containsExactly(
                tuple("/dev/vfio/vfio", "/node/dev/vfio/vfio"), tuple("/dev/vfio/61", "/node/dev/vfio/61"),
                tuple("/dev/vfio/62", "/node/dev/vfio/62"));
        assertThat(a.envs().get("PCIDEVICE_RDMA_SRIOV_A_X_INFO")).contains("\"vfio\":{")
                .contains("\"dev-mount\":\"/dev/vfio/61\"").doesNotContain("rdma_cm");
    }

    @Test
    void aVfThePoolSeesAnewIsWorkedOutAgain() {
        SriovHost host = SriovHost.recorded(dir);
        VfAllocator allocator = new VfAllocator("rdma", "sriov-a.x", NODE);
        DeviceFile cm = io.rdmanode.deviceplugin.testing.DevicePluginTesting.layer(LayerSettings.DEFAULT)
                .rdmaCm(host.snapshot());
        PooledVf before = vfs(host).get("0000:86:00.2");
        ContainerAllocation rdma = allocator.allocate(List.of(before), cm);
        assertThat(allocator.allocate(List.of(before), cm)).isEqualTo(rdma);
        assertThat(allocator.nodes(before, cm)).isEqualTo(rdma.devices());          // a CDI device's nodes

        // Rebound to vfio-pci: the rescan's assignment makes a new PooledVf, and the allocation follows it.
        host.bindVfio("0000:86:00.2", "mlx5_10", "ens2f0v0");
        host.rescan();
        ContainerAllocation vfio = allocator.allocate(List.of(vfs(host).get("0000:86:00.2")), cm);

        assertThat(rdma.devices()).extracting(DeviceNode::containerPath).contains("/dev/infiniband/rdma_cm")
                .noneMatch(path -> path.startsWith("/dev/vfio"));
        assertThat(vfio.devices()).extracting(DeviceNode::containerPath).containsExactly("/dev/vfio/vfio",
                "/dev/vfio/61");
        assertThat(vfio.envs().get("PCIDEVICE_RDMA_SRIOV_A_X_INFO")).contains("\"vfio\":{")
                .doesNotContain("rdma_cm");
        // rdma_cm gone from the host: a VF worked out with it is worked out again without it.
        ContainerAllocation noCm = allocator.allocate(List.of(before), new DeviceFile("rdma_cm", "infiniband/rdma_cm",
                dir.resolve("dev/infiniband/rdma_cm"), Optional.of("no rdma_cm on this host")));
        assertThat(noCm.devices()).extracting(DeviceNode::containerPath).doesNotContain("/dev/infiniband/rdma_cm");
        assertThat(noCm.envs().get("PCIDEVICE_RDMA_SRIOV_A_X_INFO")).doesNotContain("rdma_cm");
    }

    @ParameterizedTest
    @CsvSource({"rdma, sriov_a, PCIDEVICE_RDMA_SRIOV_A", "intel.com, sriov-rdma, PCIDEVICE_INTEL_COM_SRIOV_RDMA",
            "example.org, a.b-c_d9, PCIDEVICE_EXAMPLE_ORG_A_B_C_D9", "exämple.org, a😀b, PCIDEVICE_EX_MPLE_ORG_A_B"})
    void envNamesAreShellIdentifiers(String prefix, String name, String expected) {
        assertThat(PciDeviceEnv.variable(prefix, name)).isEqualTo(expected).matches("[A-Z_][A-Z0-9_]*");
    }

    @Test
    void repeatedIdsCountOnce() {
        assertThat(VfAllocator.distinct(List.of("a", "b", "a"))).containsExactly("a", "b");
        assertThat(Json.write(Map.of("k", "quote\" back\\ nl\n"))).isEqualTo("{\"k\":\"quote\\\" back\\\\ nl\\n\"}");
    }
}
