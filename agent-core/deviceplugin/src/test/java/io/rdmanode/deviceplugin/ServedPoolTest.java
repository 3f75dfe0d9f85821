// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePluginException;
import io.rdmanode.kubelet.testing.KubeletTestbed;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A per-VF pool (the SR-IOV plugin's shape) served by the layer on the real device-plugin host, looked at by the
 * kubelet double over gRPC: device list and health per VF, pushes only on change, Allocate's node paths under
 * {@code hostDevRoot} with container paths under {@code /dev}, status.
 */
class ServedPoolTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir
    Path dir;
    private RecordedHostDiscovery discovery;
    private KubeletTestbed kubelet;
    private DevicePluginLayer layer;

    @BeforeEach
    void start() {
        discovery = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir.resolve("host"));
        kubelet = KubeletTestbed.start(dir);
        layer = new io.rdmanode.deviceplugin.internal.Layer(new LayerSettings(new DevicePaths(Path.of("/host-root/dev")), List.of()));
    }

    @AfterEach
    void stop() {
        kubelet.close();
    }

    /** One ID per selected VF (its PCI address), healthy when its RDMA device can work. */
    private final class VfPool implements ResourcePool {
        private final Selectors selectors = new Selectors(List.of(), List.of(), List.of(), List.of(), List.of(),
                Selectors.pfSelectors("pfNames", List.of("ens1f0#0-3")), List.of(), List.of(), Optional.of(true));

        @Override
        public String name() {
            return "vfs";
        }

        @Override
        public String resourceName() {
            return "example.com/vfs";
        }

        @Override
        public PoolView compute(HostSnapshot host) {
            Selection s = selectors.select(layer.candidates(host, Granularity.VF));
            List<Device> devices = new ArrayList<>();
            Map<String, String> unusable = new java.util.LinkedHashMap<>();
            for (CandidateDevice c : s.matched()) {
                devices.add(new Device(c.key(), c.health().usable(),
                        c.numaNode().map(n -> List.of(n.longValue())).orElse(List.of())));
                c.health().problem().ifPresent(p -> unusable.put(c.key(), p));
            }
            return new PoolView(host.revision(), devices, s, unusable, !devices.isEmpty(), "", Map.of());
        }

        @Override
        public ContainerAllocation allocate(PoolView view, List<String> ids) {
            Map<String, CandidateDevice> byKey = view.selection().byKey();
            List<DeviceFile> files = new ArrayList<>();
            for (String id : ids) {
                CandidateDevice c = byKey.get(id);
                if (c == null) {
                    throw new DevicePluginException(DevicePluginException.Code.INVALID_ARGUMENT, resourceName(),
                            "unknown VF " + id);
                }
                files.addAll(c.deviceFiles());
            }
            return new ContainerAllocation(Map.of(), List.of(), layer.paths().nodes(files, "rw"), Map.of(), List.of());
        }
    }

    @Test
    void servesOneIdPerSelectedVfAndAllocatesNodePathsUnderHostDevRoot() {
        ServedPool served = layer.serve(new VfPool(), discovery, kubelet.host());
        kubelet.awaitRegistrations("example.com/vfs", 1, WAIT);

        List<Device> devices = kubelet.plugin("example.com/vfs").latest(WAIT);
        assertThat(devices).extracting(Device::id).containsExactly("0000:3b:00.2", "0000:3b:00.3", "0000:3b:00.4",
                "0000:3b:00.5");
        assertThat(devices).allSatisfy(d -> assertThat(d.numaNodes()).containsExactly(0L));

        List<ContainerAllocation> a = kubelet.plugin("example.com/vfs").allocate("example.com/vfs",
                List.of("0000:3b:00.2"), List.of("0000:3b:00.3"));

        assertThat(a.get(0).devices()).containsExactly(
                new DeviceNode("/dev/infiniband/uverbs1", "/host-root/dev/infiniband/uverbs1", "rw"),
                new DeviceNode("/dev/infiniband/umad1", "/host-root/dev/infiniband/umad1", "rw"),
                new DeviceNode("/dev/infiniband/issm1", "/host-root/dev/infiniband/issm1", "rw"));
        assertThat(a.get(1).devices()).extracting(DeviceNode::containerPath).first()
                .isEqualTo("/dev/infiniband/uverbs2");
        assertThatThrownBy(() -> kubelet.plugin("example.com/vfs").allocate("example.com/vfs", List.of("0000:3b:00.7")))
                .isInstanceOfSatisfying(DevicePluginException.class,
                        e -> assertThat(e.code()).isEqualTo(DevicePluginException.Code.INVALID_ARGUMENT));
        PoolStatus status = served.status();
        assertThat(status.allocations()).isEqualTo(2);          // one per container request
        assertThat(status.allocationFailures()).isEqualTo(1);
        assertThat(status.matched()).hasSize(4);
        assertThat(status.excluded()).containsEntry("0000:3b:00.6", "PF [ens1f0] VF 4 not in pfNames [ens1f0#0-3]");
        served.close();
        assertThat(kubelet.host().figures()).isEmpty();
    }

    @Test
    void pushesListAndWatchOnlyWhenTheDeviceListChanges() {
        ServedPool served = layer.serve(new VfPool(), discovery, kubelet.host());
        kubelet.awaitRegistrations("example.com/vfs", 1, WAIT);
        kubelet.plugin("example.com/vfs").awaitDevices(l -> l.size() == 4, WAIT);

        // A change outside the pool (a VF of the other PF goes down): new snapshot, same device list, no push.
        discovery.portState("mlx5_10", 1, "1: DOWN");
        discovery.rescan();
        // A VF of the pool goes down: that one device turns Unhealthy, the others stay.
        discovery.portState("mlx5_1", 1, "1: DOWN");
        discovery.rescan();
        List<Device> after = kubelet.plugin("example.com/vfs").awaitDevices(
                l -> l.stream().anyMatch(d -> !d.healthy()), WAIT);

        assertThat(after).filteredOn(d -> !d.healthy()).extracting(Device::id).containsExactly("0000:3b:00.2");
        assertThat(kubelet.plugin("example.com/vfs").updates()).isEqualTo(2);
        assertThat(served.view().unusable()).containsOnlyKeys("0000:3b:00.2");
        assertThat(served.status().toMap()).containsKeys("unusable", "excluded", "allocations");
        served.close();
        assertThat(discovery.listenerCount()).isZero();
    }

    /**
     * The layer's second line of the ownership rule: an exclusive owner (an SR-IOV pool) claiming a VF this
     * served pool also holds turns the pool's devices Unhealthy with a reason naming both pools, and Allocate is
     * refused; once the owner lets go, the pool serves again. Over the real host and the kubelet double.
     */
    @Test
    void aDeviceAnotherPoolOwnsExclusivelyIsNotServedTwice() {
        ServedPool served = layer.serve(new VfPool(), discovery, kubelet.host());
        kubelet.awaitRegistrations("example.com/vfs", 1, WAIT);
        kubelet.plugin("example.com/vfs").awaitDevices(l -> l.size() == 4 && l.stream().allMatch(Device::healthy),
                WAIT);

        List<Ownership.Conflict> conflicts = layer.claim(new Ownership.Claim("rdma/sriov_a", "sriov_a", true,
                java.util.Set.of("0000:3b:00.3", "0000:86:00.2")));

        assertThat(conflicts).extracting(Ownership.Conflict::message).containsExactly("pools vfs (shared) and"
                + " sriov_a (exclusive) would both own 0000:3b:00.3: a device has one owner on the node (an exclusive"
                + " pool shares no device; narrow the selectors of one of them)");
        kubelet.plugin("example.com/vfs").awaitDevices(l -> l.stream().noneMatch(Device::healthy), WAIT);
        assertThat(served.view().reason()).contains("sriov_a (exclusive)").contains("vfs (shared)");
        assertThatThrownBy(() -> kubelet.plugin("example.com/vfs").allocate("example.com/vfs",
                List.of("0000:3b:00.2"))).isInstanceOfSatisfying(DevicePluginException.class,
                        e -> assertThat(e.code()).isEqualTo(DevicePluginException.Code.UNAVAILABLE));

        layer.release("rdma/sriov_a");
        kubelet.plugin("example.com/vfs").awaitDevices(l -> l.stream().allMatch(Device::healthy), WAIT);
        assertThat(kubelet.plugin("example.com/vfs").allocate("example.com/vfs", List.of("0000:3b:00.2")))
                .hasSize(1);
        served.close();
    }
}
