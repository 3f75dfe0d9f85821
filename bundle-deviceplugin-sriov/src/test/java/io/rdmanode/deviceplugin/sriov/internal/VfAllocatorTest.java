// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Allocate contents: RDMA and vfio nodes with host and container paths, PCIDEVICE env and its _INFO JSON. */
class VfAllocatorTest {

    private static final Path DEV = Path.of("/tmp/host/dev");
    private static final DevicePaths PATHS = new DevicePaths(DEV);
    private static final VfAllocator ALLOCATOR = new VfAllocator("rdma", "sriov-a.x", PATHS::containerPath,
            PATHS::hostPath);

    private static PooledVf rdmaVf(String bdf, int n) {
        SriovVf vf = new SriovVf(SriovHost.pci(bdf), SriovHost.pci("0000:3b:00.0"), n, List.of("ens1f0"), "15b3",
                "1018", Optional.of("mlx5_core"), Optional.of(0), Optional.of("4" + n), List.of("mlx5_" + n),
                List.of("ens1f0v" + n));
        VfRdma rdma = new VfRdma("mlx5_" + n, List.of(new VfRdma.Node("uverbs", DEV.resolve("infiniband/uverbs" + n)),
                new VfRdma.Node("umad", DEV.resolve("infiniband/umad" + n))));
        return new PooledVf(vf, Optional.of(rdma), false, Optional.empty());
    }

    private static PooledVf vfioVf(String bdf, String group) {
        SriovVf vf = new SriovVf(SriovHost.pci(bdf), SriovHost.pci("0000:86:00.0"), 0, List.of(), "15b3", "1018",
                Optional.of("vfio-pci"), Optional.of(1), Optional.of(group), List.of(), List.of());
        return new PooledVf(vf, Optional.empty(), false, Optional.empty());
    }

    @Test
    void handsOutEachVfsRdmaNodesAndRdmaCmOnceWithContainerPathsUnderDev() {
        ContainerAllocation a = ALLOCATOR.allocate(List.of(rdmaVf("0000:3b:00.2", 1), rdmaVf("0000:3b:00.3", 2)),
                Optional.of(DEV.resolve("infiniband/rdma_cm")));

        assertThat(a.devices()).extracting(DeviceNode::containerPath, DeviceNode::hostPath, DeviceNode::permissions)
                .containsExactly(
                        tuple("/dev/infiniband/uverbs1", "/tmp/host/dev/infiniband/uverbs1", "rw"),
                        tuple("/dev/infiniband/umad1", "/tmp/host/dev/infiniband/umad1", "rw"),
                        tuple("/dev/infiniband/uverbs2", "/tmp/host/dev/infiniband/uverbs2", "rw"),
                        tuple("/dev/infiniband/umad2", "/tmp/host/dev/infiniband/umad2", "rw"),
                        tuple("/dev/infiniband/rdma_cm", "/tmp/host/dev/infiniband/rdma_cm", "rw"));
        assertThat(a.envs()).containsEntry("PCIDEVICE_RDMA_SRIOV_A_X", "0000:3b:00.2,0000:3b:00.3");
        assertThat(a.envs().get("PCIDEVICE_RDMA_SRIOV_A_X_INFO")).isEqualTo("{"
                + "\"0000:3b:00.2\":{\"generic\":{\"deviceID\":\"0000:3b:00.2\"},\"rdma\":{\"rdma_dev\":\"mlx5_1\","
                + "\"uverbs\":\"/dev/infiniband/uverbs1\",\"umad\":\"/dev/infiniband/umad1\","
                + "\"rdma_cm\":\"/dev/infiniband/rdma_cm\"}},"
                + "\"0000:3b:00.3\":{\"generic\":{\"deviceID\":\"0000:3b:00.3\"},\"rdma\":{\"rdma_dev\":\"mlx5_2\","
                + "\"uverbs\":\"/dev/infiniband/uverbs2\",\"umad\":\"/dev/infiniband/umad2\","
                + "\"rdma_cm\":\"/dev/infiniband/rdma_cm\"}}}");
        assertThat(a.mounts()).isEmpty();
        assertThat(a.annotations()).isEmpty();
    }

    @Test
    void givesVfioVfsTheContainerAndTheirIommuGroupOnce() {
        ContainerAllocation a = ALLOCATOR.allocate(List.of(vfioVf("0000:86:00.2", "61"), vfioVf("0000:86:00.3", "62")),
                Optional.of(DEV.resolve("infiniband/rdma_cm")));

        assertThat(a.devices()).extracting(DeviceNode::containerPath, DeviceNode::hostPath).containsExactly(
                tuple("/dev/vfio/vfio", "/tmp/host/dev/vfio/vfio"), tuple("/dev/vfio/61", "/tmp/host/dev/vfio/61"),
                tuple("/dev/vfio/62", "/tmp/host/dev/vfio/62"));
        assertThat(a.envs().get("PCIDEVICE_RDMA_SRIOV_A_X_INFO")).contains(
                "\"vfio\":{").contains("\"dev-mount\":\"/dev/vfio/61\"").doesNotContain("rdma_cm");
    }

    @ParameterizedTest
    @CsvSource({"rdma, sriov_a, PCIDEVICE_RDMA_SRIOV_A", "intel.com, sriov-rdma, PCIDEVICE_INTEL_COM_SRIOV_RDMA",
            "example.org, a.b-c_d9, PCIDEVICE_EXAMPLE_ORG_A_B_C_D9"})
    void envNamesAreShellIdentifiers(String prefix, String name, String expected) {
        assertThat(PciDeviceEnv.variable(prefix, name)).isEqualTo(expected).matches("[A-Z_][A-Z0-9_]*");
    }

    @Test
    void repeatedIdsCountOnce() {
        assertThat(VfAllocator.distinct(List.of("a", "b", "a"))).containsExactly("a", "b");
        assertThat(Json.write(Map.of("k", "quote\" back\\ nl\n"))).isEqualTo("{\"k\":\"quote\\\" back\\\\ nl\\n\"}");
    }
}
