// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import io.rdmanode.dra.internal.ClaimReader.Result;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ResourceSlices and ResourceClaims against fabric8's mock API server in CRUD mode. */
@EnableKubernetesMockClient(crud = true)
class ApiServerTest {

    private static final String DRIVER = DraSettings.DEFAULT_DRIVER;
    private static final String NODE = "node-1";

    KubernetesClient client;

    @TempDir
    static Path hostDir;

    private static HostSnapshot host;

    @BeforeAll
    static void unpack() {
        host = RecordedHostDiscovery.unpack("cx5-roce-sriov", hostDir).snapshot();
    }

    private SliceDevices sliceDevices() {
        return new SliceDevices(new PcieRoots(hostDir.resolve("sys")));
    }

    @Test
    void theRecordedHostIsPublishedWithItsDeviceAttributes() {
        List<Device> devices = sliceDevices().of(host);
        SlicePublisher.Published p = new SlicePublisher(client, DRIVER, NODE).publish("rdma", devices);

        assertThat(p).isEqualTo(new SlicePublisher.Published(1, 1, true));
        List<ResourceSlice> slices = client.resources(ResourceSlice.class).list().getItems();
        assertThat(slices).hasSize(1);
        ResourceSlice s = slices.get(0);
        assertThat(s.getSpec().getDriver()).isEqualTo(DRIVER);
        assertThat(s.getSpec().getNodeName()).isEqualTo(NODE);
        assertThat(s.getSpec().getPool().getName()).isEqualTo("rdma");
        assertThat(s.getSpec().getPool().getGeneration()).isEqualTo(1L);
        assertThat(s.getSpec().getPool().getResourceSliceCount()).isEqualTo(1L);
        assertThat(s.getSpec().getDevices()).extracting(Device::getName)
                .containsExactlyElementsOf(NodeDevice.of(host).keySet())
                .contains("pci-0000-3b-00-0", "pci-0000-3b-00-2")
                .allMatch(n -> n.matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?"));

        Map<String, DeviceAttribute> vf = s.getSpec().getDevices().stream()
                .filter(d -> d.getName().equals("pci-0000-3b-00-2")).findFirst().orElseThrow().getAttributes();
        assertThat(vf.get("resource.kubernetes.io/pciBusID").getString()).isEqualTo("0000:3b:00.2");
        assertThat(vf.get("resource.kubernetes.io/pcieRoot").getString()).isEqualTo("pci0000:3a");
        assertThat(vf.get("virtualFunction").getBool()).isTrue();
        assertThat(vf.get("vfIndex").getInt()).isZero();
        assertThat(vf.get("pfPciAddress").getString()).isEqualTo("0000:3b:00.0");
        assertThat(vf.get("linkLayer").getString()).isEqualTo("Ethernet");
        assertThat(vf.get("vendorID").getString()).isEqualTo("15b3");
        assertThat(vf.get("rdmaDevice").getString()).startsWith("mlx5_");
        assertThat(vf).containsKeys("pfName", "netdev", "numaNode", "nodeGUID", "firmwareVersion", "deviceID");
        assertThat(vf.size()).isLessThanOrEqualTo(32);
        assertThat(vf.values()).allMatch(a -> a.getString() == null || a.getString().length() <= 64);
    }

    @Test
    void anUnchangedPoolIsLeftAloneAndAChangedOneGetsANewGenerationAndTheOldSlicesGo() {
        SlicePublisher publisher = new SlicePublisher(client, DRIVER, NODE);
        List<Device> devices = sliceDevices().of(host);
        publisher.publish("rdma", devices);
        assertThat(publisher.publish("rdma", devices)).isEqualTo(new SlicePublisher.Published(1, 1, false));

        SlicePublisher.Published changed = publisher.publish("rdma", devices.subList(1, devices.size()));
        assertThat(changed).isEqualTo(new SlicePublisher.Published(2, 1, true));
        List<ResourceSlice> slices = client.resources(ResourceSlice.class).list().getItems();
        assertThat(slices).hasSize(1);
        assertThat(slices.get(0).getSpec().getPool().getGeneration()).isEqualTo(2L);
        assertThat(slices.get(0).getSpec().getDevices()).hasSize(devices.size() - 1);
    }

    @Test
    void aLargePoolIsSplitIntoSlicesOfAtMost128DevicesOfOneGeneration() {
        List<Device> many = IntStream.range(0, 300).mapToObj(i -> new DeviceBuilder()
                .withName(String.format("pci-0000-%02x-%02x-%d", i / 32 / 8 + 1, (i / 8) % 32, i % 8)).build())
                .toList();
        SlicePublisher publisher = new SlicePublisher(client, DRIVER, NODE);
        assertThat(publisher.publish("big", many)).isEqualTo(new SlicePublisher.Published(1, 3, true));
        List<ResourceSlice> slices = publisher.ours("big");
        assertThat(slices).extracting(s -> s.getSpec().getDevices().size()).containsExactly(128, 128, 44);
        assertThat(slices).allMatch(s -> s.getSpec().getPool().getResourceSliceCount() == 3L
                && s.getSpec().getPool().getGeneration() == 1L);
        assertThat(publisher.publish("big", many.subList(0, 200))).isEqualTo(new SlicePublisher.Published(2, 2, true));
        assertThat(publisher.ours("big")).hasSize(2).allMatch(s -> s.getSpec().getPool().getGeneration() == 2L);
        // Another pool and another node's slices are not this pool's business.
        new SlicePublisher(client, DRIVER, "node-2").publish("big", many.subList(0, 1));
        assertThat(publisher.ours("big")).hasSize(2);
    }

    @Test
    void aNodeNameLongerThanALabelValueIsLabelledByADigestAndStillFoundAgain() {
        String longNode = "node-" + "a".repeat(70) + ".example.com";
        SlicePublisher publisher = new SlicePublisher(client, DRIVER, longNode);
        List<Device> devices = sliceDevices().of(host);
        assertThat(publisher.publish("rdma", devices).changed()).isTrue();
        ResourceSlice s = publisher.ours("rdma").get(0);
        assertThat(s.getSpec().getNodeName()).isEqualTo(longNode);
        assertThat(s.getMetadata().getLabels().get(DRIVER + "/node")).startsWith("sha256-").hasSizeLessThanOrEqualTo(63);
        assertThat(publisher.publish("rdma", devices).changed()).isFalse();
    }

    @Test
    void theClaimReaderReturnsUidAndAllocationResults() throws Exception {
        ResourceClaim claim = new ResourceClaimBuilder()
                .withMetadata(new ObjectMetaBuilder().withNamespace("ns").withName("pod-nic").withUid("uid-9").build())
                .withNewStatus().withNewAllocation().withNewDevices()
                .withResults(new DeviceRequestAllocationResultBuilder().withRequest("nic").withDriver(DRIVER)
                                .withPool("rdma").withDevice("pci-0000-3b-00-2").build(),
                        new DeviceRequestAllocationResultBuilder().withRequest("gpu").withDriver("gpu.example.com")
                                .withPool("gpus").withDevice("gpu-0").build())
                .endDevices().endAllocation()
                .addNewReservedFor().withResource("pods").withName("trainer-0").withUid("pod-uid-0").endReservedFor()
                .endStatus().build();
        client.resource(claim).create();

        Fabric8ClaimReader reader = new Fabric8ClaimReader(client);
        ClaimReader.AllocatedClaim read = reader.read("ns", "pod-nic").orElseThrow();
        assertThat(read.uid()).isEqualTo(client.resources(ResourceClaim.class).inNamespace("ns").withName("pod-nic")
                .get().getMetadata().getUid());
        assertThat(read.results()).containsExactly(new Result("nic", DRIVER, "rdma", "pci-0000-3b-00-2"),
                new Result("gpu", "gpu.example.com", "gpus", "gpu-0"));
        assertThat(read.podUids()).containsExactly("pod-uid-0");
        assertThat(reader.read("ns", "no-such-claim")).isEmpty();
    }

    private List<ResourceSlice> slicesOf(String node, String pool) {
        return client.resources(ResourceSlice.class).list().getItems().stream()
                .filter(s -> s.getSpec().getNodeName().equals(node) && s.getSpec().getPool().getName().equals(pool))
                .toList();
    }

    private static long generation(List<ResourceSlice> slices) {
        return slices.stream().mapToLong(s -> s.getSpec().getPool().getGeneration()).max().orElse(0);
    }

    /**
     * Two pools on the recorded host (ens1f0's VFs, ens2f0's VFs) through the slice sync: each publishes its own
     * slices with its own generations, the single pool published before them goes, a changed pool moves on to a
     * new generation while the other stays, and a pool removed from the configuration has its slices deleted.
     */
    @Test
    void eachPoolPublishesItsOwnSlicesAndAPoolNoLongerConfiguredIsDeleted() throws Exception {
        var layer = io.rdmanode.deviceplugin.testing.DevicePluginTesting.layer(
                io.rdmanode.deviceplugin.LayerSettings.DEFAULT);
        SlicePublisher publisher = new SlicePublisher(client, DRIVER, NODE);
        publisher.publish(NODE, sliceDevices().of(host));                 // the single pool of before
        new SlicePublisher(client, DRIVER, "node-2").publish("vfs-b", sliceDevices().of(host).subList(0, 1));
        var config = new java.util.concurrent.atomic.AtomicReference<>(PoolDevicesTest.twoPools("ens1f0#0-7",
                "ens2f0#0-7"));
        java.util.function.Supplier<Map<String, List<Device>>> pools = () -> new SliceDevices(
                new PcieRoots(hostDir.resolve("sys")),
                new PoolDevices(config.get(), () -> java.util.Optional.of(layer))).byPool(host);

        try (SliceSync sync = new SliceSync(publisher, pools, java.time.Duration.ofHours(1))) {
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).untilAsserted(() -> {
                assertThat(slicesOf(NODE, NODE)).isEmpty();
                assertThat(slicesOf(NODE, "vfs-a")).singleElement().satisfies(s -> assertThat(s.getSpec()
                        .getDevices()).hasSize(8).extracting(Device::getName).contains("pci-0000-3b-00-2"));
                assertThat(slicesOf(NODE, "vfs-b")).singleElement().satisfies(s -> assertThat(s.getSpec()
                        .getDevices()).hasSize(8).extracting(Device::getName).doesNotContain("pci-0000-3b-00-2"));
                assertThat(sync.states().keySet()).containsExactly("vfs-a", "vfs-b");  // set after the publish
            });
            assertThat(generation(slicesOf(NODE, "vfs-a"))).isEqualTo(1);
            assertThat(generation(slicesOf(NODE, "vfs-b"))).isEqualTo(1);

            config.set(PoolDevicesTest.twoPools("ens1f0#0-3", "ens2f0#0-7"));
            sync.request();
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat(slicesOf(NODE, "vfs-a")).singleElement().satisfies(s -> {
                        assertThat(s.getSpec().getPool().getGeneration()).isEqualTo(2L);
                        assertThat(s.getSpec().getDevices()).hasSize(4);
                    }));
            assertThat(generation(slicesOf(NODE, "vfs-b"))).isEqualTo(1);       // its own generations

            config.set(config.get().subList(0, 1));
            sync.request();
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).untilAsserted(() -> {
                assertThat(slicesOf(NODE, "vfs-b")).isEmpty();
                assertThat(sync.states().keySet()).containsExactly("vfs-a");
            });
            assertThat(generation(slicesOf(NODE, "vfs-a"))).isEqualTo(2);
            assertThat(sync.error()).isEmpty();
        }
        assertThat(slicesOf("node-2", "vfs-b")).hasSize(1);                      // another node's: untouched
    }
}
