// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePlugin;
import io.rdmanode.kubelet.HeldDevice;
import io.rdmanode.kubelet.PodHoldings;
import io.rdmanode.kubelet.internal.HostSettings;
import io.rdmanode.kubelet.internal.KubeletCheckpoint;
import io.rdmanode.kubelet.internal.KubeletDevicePluginHost;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kubelet double admits, frees and restarts the way kubelet's device manager does. */
class KubeletDoubleTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir
    Path dir;
    private KubeletDouble kubelet;
    private KubeletDevicePluginHost host;

    @BeforeEach
    void start() throws IOException {
        kubelet = KubeletDouble.start(dir, dir.resolve("pr/kubelet.sock"));
        host = new KubeletDevicePluginHost(new HostSettings(dir, dir.resolve("kubelet.sock"), 2000, 2000, 60_000, 1));
    }

    @AfterEach
    void stop() {
        host.close();
        kubelet.close();
    }

    /** Prefers the last available IDs (to tell preferred from first-free) and records every call. */
    static final class RecordingPlugin implements DevicePlugin {
        final String resource;
        volatile List<Device> devices;
        final List<List<String>> preferredAvailable = new CopyOnWriteArrayList<>();
        final List<List<String>> allocated = new CopyOnWriteArrayList<>();

        RecordingPlugin(String resource, List<Device> devices) {
            this.resource = resource;
            this.devices = devices;
        }

        @Override
        public String resourceName() {
            return resource;
        }

        @Override
        public List<Device> devices() {
            return devices;
        }

        @Override
        public List<String> preferredAllocation(List<String> available, List<String> mustInclude, int size) {
            preferredAvailable.add(available);
            return available.subList(available.size() - size, available.size());
        }

        @Override
        public ContainerAllocation allocate(List<String> deviceIds) {
            allocated.add(deviceIds);
            return new ContainerAllocation(Map.of("IDS", String.join(",", deviceIds)), List.of(), List.of(), Map.of(),
                    List.of());
        }
    }

    private RecordingPlugin serve(String resource, String... ids) {
        List<Device> devices = new ArrayList<>();
        for (String id : ids) {
            devices.add(new Device(id, true, List.of()));
        }
        RecordingPlugin plugin = new RecordingPlugin(resource, devices);
        host.serve(plugin);
        kubelet.awaitRegistrations(resource, 1, WAIT);
        kubelet.watch(resource, WAIT);
        return plugin;
    }

    @Test
    void admitsWithThePluginsPreferredIdsAndWritesItsCheckpoint() throws Exception {
        RecordingPlugin plugin = serve("rdma/vf_a", "vf-0", "vf-1", "vf-2", "vf-3");

        List<String> given = kubelet.admit("ns", "trainer", "main", "rdma/vf_a", 2);

        assertThat(given).containsExactly("vf-2", "vf-3");
        assertThat(plugin.preferredAvailable).containsExactly(List.of("vf-0", "vf-1", "vf-2", "vf-3"));
        assertThat(plugin.allocated).containsExactly(List.of("vf-2", "vf-3"));
        String uid = kubelet.podUid("ns", "trainer");
        assertThat(KubeletCheckpoint.read(kubelet.checkpoint())).containsExactly(
                new HeldDevice("", "", uid, "main", "rdma/vf_a", "vf-2"),
                new HeldDevice("", "", uid, "main", "rdma/vf_a", "vf-3"));
        assertThat(Files.readString(kubelet.checkpoint())).contains("\"DeviceIDs\":{\"-1\":[\"vf-2\",\"vf-3\"]}")
                .contains("\"RegisteredDevices\":{\"rdma/vf_a\":[\"vf-0\",\"vf-1\",\"vf-2\",\"vf-3\"]}");
    }

    @Test
    void offersOnlyWhatItsBookHoldsUnderNoPodForThatResourceName() {
        RecordingPlugin a = serve("rdma/vf_a", "vf-0", "vf-1");
        serve("rdma/vf_b", "vf-0", "vf-1");
        kubelet.admit("ns", "p1", "main", "rdma/vf_a", 1);

        kubelet.admit("ns", "p2", "main", "rdma/vf_a", 1);

        assertThat(a.preferredAvailable.get(1)).containsExactly("vf-0");
        assertThat(kubelet.held("rdma/vf_a")).containsExactlyInAnyOrder("vf-0", "vf-1");
        assertThatThrownBy(() -> kubelet.admit("ns", "p3", "main", "rdma/vf_a", 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("cannot admit ns/p3/main: 1 of rdma/vf_a requested, 0 free []");
        // kubelet's book is per resource name: the same IDs advertised under another name are free to it.
        assertThat(kubelet.admit("ns", "p3", "main", "rdma/vf_b", 2)).containsExactlyInAnyOrder("vf-0", "vf-1");
    }

    @Test
    void servesItsBookAsThePodResourcesApiAndItsCheckpointWhenThatStops() {
        serve("rdma/vf_a", "vf-0", "vf-1", "vf-2");
        kubelet.admit("ns", "p1", "main", "rdma/vf_a", 2);

        try (PodDevicesClient client = kubelet.podDevices()) {
            PodHoldings api = client.running();
            assertThat(api.source()).isEqualTo(PodHoldings.Source.POD_RESOURCES_API);
            assertThat(api.devices()).containsExactly(new HeldDevice("ns", "p1", "", "main", "rdma/vf_a", "vf-1"),
                    new HeldDevice("ns", "p1", "", "main", "rdma/vf_a", "vf-2"));

            kubelet.stopPodResources();
            PodHoldings checkpoint = client.running();
            assertThat(checkpoint.source()).isEqualTo(PodHoldings.Source.CHECKPOINT);
            assertThat(checkpoint.deviceIds("rdma/vf_a")).containsExactlyInAnyOrder("vf-1", "vf-2");
            assertThat(checkpoint.devices()).allSatisfy(d -> assertThat(d.podUid())
                    .isEqualTo(kubelet.podUid("ns", "p1")));

            kubelet.startPodResources();
            assertThat(client.running().source()).isEqualTo(PodHoldings.Source.POD_RESOURCES_API);
        }
    }

    @Test
    void skipsUnhealthyDevices() {
        RecordingPlugin plugin = new RecordingPlugin("rdma/vf_a", List.of(new Device("vf-0", false, List.of()),
                new Device("vf-1", true, List.of(1L))));
        host.serve(plugin);
        kubelet.awaitRegistrations("rdma/vf_a", 1, WAIT);
        kubelet.watch("rdma/vf_a", WAIT);

        assertThat(kubelet.admit("ns", "p1", "main", "rdma/vf_a", 1)).containsExactly("vf-1");
        assertThatThrownBy(() -> kubelet.admit("ns", "p2", "main", "rdma/vf_a", 1))
                .hasMessageContaining("0 free");
    }

    @Test
    void freesAPodsDevicesWhenItIsRemoved() throws Exception {
        serve("rdma/vf_a", "vf-0", "vf-1");
        kubelet.admit("ns", "p1", "main", "rdma/vf_a", 1);
        kubelet.admit("ns", "p1", "side", "rdma/vf_a", 1);

        assertThat(kubelet.remove("ns", "p1")).isEqualTo(2);

        assertThat(kubelet.held("rdma/vf_a")).isEmpty();
        assertThat(KubeletCheckpoint.read(kubelet.checkpoint())).isEmpty();
        assertThat(Files.readString(kubelet.checkpoint())).contains("\"PodDeviceEntries\":null");
        assertThat(kubelet.admit("ns", "p2", "main", "rdma/vf_a", 2)).hasSize(2);
    }

    @Test
    void restartDeletesEveryFileButItsCheckpointAndKeepsItsBook() throws Exception {
        serve("rdma/vf_a", "vf-0", "vf-1");
        kubelet.admit("ns", "p1", "main", "rdma/vf_a", 1);
        String checkpoint = Files.readString(kubelet.checkpoint());
        Files.writeString(dir.resolve("some-other-plugin.sock"), "");
        long before = kubelet.registrations("rdma/vf_a");

        kubelet.restart();

        assertThat(dir.resolve("some-other-plugin.sock")).doesNotExist();
        assertThat(Files.readString(kubelet.checkpoint())).isEqualTo(checkpoint);
        assertThat(kubelet.held("rdma/vf_a")).hasSize(1);
        kubelet.awaitRegistrations("rdma/vf_a", before + 1, WAIT);        // the host re-registered
        kubelet.watch("rdma/vf_a", WAIT);
        java.util.Set<String> held = kubelet.held("rdma/vf_a");
        assertThat(kubelet.admit("ns", "p2", "main", "rdma/vf_a", 1)).doesNotContainAnyElementsOf(held);
        assertThat(dir.resolve("pr/kubelet.sock")).exists();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".tmp"))).isEmpty();
        }
    }
}
