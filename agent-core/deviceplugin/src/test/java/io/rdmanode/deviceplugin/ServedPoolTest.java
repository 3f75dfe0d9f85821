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
    private class VfPool implements ResourcePool {
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

    /**
     * Two members of one set, the first taking the VFs its selectors match and the second the rest of the PF (the
     * SR-IOV plugin's first-match-wins shape): each discovery change prepares the set once, and adding or stopping
     * a member moves the VFs in one step, seen by kubelet over the real sockets.
     */
    private final class FirstMatch implements PoolSet {
        final java.util.concurrent.atomic.AtomicInteger prepared = new java.util.concurrent.atomic.AtomicInteger();
        volatile Map<String, List<CandidateDevice>> assignment = Map.of();

        @Override
        public void prepare(HostSnapshot host, List<ResourcePool> members) {
            prepared.incrementAndGet();
            List<Member> ordered = members.stream().map(Member.class::cast)
                    .sorted(java.util.Comparator.comparing(Member::name)).toList();
            Map<String, List<CandidateDevice>> next = new java.util.LinkedHashMap<>();
            ordered.forEach(m -> next.put(m.name(), new ArrayList<>()));
            for (CandidateDevice c : layer.candidates(host, Granularity.VF)) {
                ordered.stream().filter(m -> m.selectors.exclusion(c).isEmpty()).findFirst()
                        .ifPresent(m -> next.get(m.name()).add(c));
            }
            assignment = next;
        }
    }

    private final class Member implements ResourcePool {
        private final String name;
        private final Selectors selectors;
        private final FirstMatch set;

        Member(String name, String pfNames, FirstMatch set) {
            this.name = name;
            this.selectors = new Selectors(List.of(), List.of(), List.of(), List.of(), List.of(),
                    Selectors.pfSelectors("pfNames", List.of(pfNames)), List.of(), List.of(), Optional.empty());
            this.set = set;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String resourceName() {
            return "example.com/" + name;
        }

        @Override
        public boolean exclusive() {
            return true;
        }

        @Override
        public PoolView compute(HostSnapshot host) {
            List<CandidateDevice> mine = set.assignment.getOrDefault(name, List.of());
            return new PoolView(host.revision(), mine.stream().map(c -> new Device(c.key(), true, List.of()))
                    .toList(), new Selection(mine, List.of()), Map.of(), true, "", Map.of());
        }

        @Override
        public ContainerAllocation allocate(PoolView view, List<String> ids) {
            return new ContainerAllocation(Map.of(), List.of(), List.of(), Map.of(), List.of());
        }
    }

    @Test
    void aPoolSetMovesDevicesBetweenItsMembersInOneStep() {
        FirstMatch rule = new FirstMatch();
        ServedPoolSet set = layer.serve(rule, discovery);
        ServedPool b = set.serve(new Member("b", "ens1f0#0-3", rule), kubelet.host());
        kubelet.awaitRegistrations("example.com/b", 1, WAIT);
        kubelet.plugin("example.com/b").awaitDevices(l -> l.size() == 4, WAIT);

        ServedPool a = set.serve(new Member("a", "ens1f0#0-1", rule), kubelet.host());
        kubelet.awaitRegistrations("example.com/a", 1, WAIT);
        assertThat(kubelet.plugin("example.com/a").latest(WAIT)).extracting(Device::id)
                .containsExactly("0000:3b:00.2", "0000:3b:00.3");
        assertThat(kubelet.plugin("example.com/b").awaitDevices(l -> l.size() == 2, WAIT)).extracting(Device::id)
                .containsExactly("0000:3b:00.4", "0000:3b:00.5");
        assertThat(layer.claim(new Ownership.Claim("example.com/x", "x", false, java.util.Set.of("0000:3b:00.9"))))
                .isEmpty();                                        // a and b claim disjoint VFs
        layer.release("example.com/x");

        int before = rule.prepared.get();
        discovery.portState("mlx5_10", 1, "1: DOWN");
        discovery.rescan();
        org.awaitility.Awaitility.await().atMost(WAIT).until(() -> rule.prepared.get() > before);
        assertThat(set.members()).containsExactly(b, a);

        a.close();
        assertThat(kubelet.plugin("example.com/b").awaitDevices(l -> l.size() == 4, WAIT)).hasSize(4);
        assertThat(kubelet.plugin("example.com/b").deviceLists()).allSatisfy(l -> assertThat(l.size())
                .isIn(2, 4));                                      // never both, never none
        set.close();
        assertThat(discovery.listenerCount()).isZero();
        assertThat(kubelet.host().figures()).isEmpty();
    }

    /**
     * GetPreferredAllocation through the real socket keeps kubelet's rules whatever the pool prefers: every
     * must-include ID, only offered IDs, exactly the size; a size that cannot be met is INVALID_ARGUMENT.
     */
    @Test
    void thePreferredAllocationHoldsOnlyOfferedIdsAndEveryMustIncludeOne() {
        ResourcePool careless = new VfPool() {
            @Override
            public List<String> preferredAllocation(PoolView view, List<String> available, List<String> mustInclude,
                                                    int size) {
                return List.of("0000:99:00.1", "0000:3b:00.5", "0000:3b:00.5");      // foreign, duplicate
            }
        };
        ServedPool served = layer.serve(careless, discovery, kubelet.host());
        kubelet.awaitRegistrations("example.com/vfs", 1, WAIT);
        KubeletTestbed.Plugin plugin = kubelet.plugin("example.com/vfs");
        List<String> offered = List.of("0000:3b:00.2", "0000:3b:00.3", "0000:3b:00.4", "0000:3b:00.5");

        assertThat(plugin.preferred("example.com/vfs", offered, List.of("0000:3b:00.3"), 3))
                .containsExactly("0000:3b:00.3", "0000:3b:00.5", "0000:3b:00.2");
        assertThat(plugin.preferred("example.com/vfs", offered, List.of(), 1)).containsExactly("0000:3b:00.5");
        assertThatThrownBy(() -> plugin.preferred("example.com/vfs", offered, List.of(), 5))
                .isInstanceOfSatisfying(DevicePluginException.class, e -> {
                    assertThat(e.code()).isEqualTo(DevicePluginException.Code.INVALID_ARGUMENT);
                    assertThat(e.getMessage()).contains("4 available");
                });
        assertThatThrownBy(() -> plugin.preferred("example.com/vfs", offered, List.of("0000:86:00.2"), 2))
                .isInstanceOfSatisfying(DevicePluginException.class, e -> assertThat(e.getMessage())
                        .contains("must-include IDs [0000:86:00.2] are not among the available IDs"));
        served.close();
    }
}
