// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import io.rdmanode.dra.internal.ClaimReader.AllocatedClaim;
import io.rdmanode.dra.internal.ClaimReader.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Prepare and Unprepare on the recorded ConnectX-5 host with SR-IOV VFs, real CDI and checkpoint files. */
class ClaimPreparerTest {

    private static final String DRIVER = DraSettings.DEFAULT_DRIVER;
    private static final String VF_A = "pci-0000-3b-00-2";
    private static final String VF_B = "pci-0000-3b-00-3";

    @TempDir
    Path dir;

    @TempDir
    static Path hostDir;

    private static HostSnapshot host;
    private final FakeClaimReader reader = new FakeClaimReader();
    private final Map<String, String> devicePluginHeld = new java.util.concurrent.ConcurrentHashMap<>();
    private Path cdiDir;
    private Path checkpoint;

    @BeforeAll
    static void unpackOnce() {
        host = RecordedHostDiscovery.unpack("cx5-roce-sriov", hostDir).snapshot();
    }

    @BeforeEach
    void paths() {
        cdiDir = dir.resolve("cdi");
        checkpoint = dir.resolve("state/dra-prepared.json");
    }

    private ClaimPreparer preparer(HostSnapshot snapshot) throws IOException {
        return new ClaimPreparer(DRIVER, reader, () -> snapshot, pci -> Optional.ofNullable(devicePluginHeld.get(pci)),
                new ClaimCdiSpecs(cdiDir, DRIVER, new DevicePaths(Path.of("/dev"))), new PreparedClaims(checkpoint));
    }

    private static AllocatedClaim allocated(String uid, Result... results) {
        return new AllocatedClaim(uid, List.of(results));
    }

    private static Result ours(String request, String device) {
        return new Result(request, DRIVER, "node-1-rdma", device);
    }

    private RdmaDevice rdmaOf(String pci) {
        PciFunction f = host.pciFunction(PciAddress.parse(pci).orElseThrow()).orElseThrow();
        return host.device(f.rdmaDevices().get(0)).orElseThrow();
    }

    @Test
    void preparesTheDevicesOfOurDriverWithOneCdiSpecAndACheckpoint() throws Exception {
        reader.put("ns", "pod-nics", allocated("uid-1", ours("nic", VF_A), ours("nic2", VF_B),
                new Result("gpu", "gpu.example.com", "gpus", "gpu-0")));
        PrepareOutcome out = preparer(host).prepare(new ClaimRef("ns", "uid-1", "pod-nics"));

        assertThat(out.error()).isEmpty();
        assertThat(out.devices()).extracting(PreparedDevice::device).containsExactly(VF_A, VF_B);
        PreparedDevice a = out.devices().get(0);
        assertThat(a.requests()).containsExactly("nic");
        assertThat(a.pool()).isEqualTo("node-1-rdma");
        assertThat(a.cdiIds()).containsExactly(DRIVER + "/rdma=uid-1-" + VF_A);
        assertThat(a.rdmaDevice()).isEqualTo(rdmaOf("0000:3b:00.2").name());

        JsonNode spec = new ObjectMapper().readTree(cdiDir.resolve(DRIVER + "-rdma_uid-1.json").toFile());
        assertThat(spec.path("kind").asText()).isEqualTo(DRIVER + "/rdma");
        JsonNode dev = spec.path("devices").get(0);
        assertThat(dev.path("name").asText()).isEqualTo("uid-1-" + VF_A);
        List<String> nodes = new ArrayList<>();
        dev.path("containerEdits").path("deviceNodes").forEach(n -> nodes.add(n.path("path").asText()));
        String uverbs = "/dev/infiniband/" + rdmaOf("0000:3b:00.2").uverbs().path().getFileName();
        assertThat(nodes).contains(uverbs, "/dev/infiniband/rdma_cm");
        assertThat(nodes).anyMatch(n -> n.startsWith("/dev/infiniband/umad"));
        List<String> env = new ArrayList<>();
        dev.path("containerEdits").path("env").forEach(e -> env.add(e.asText()));
        assertThat(env).containsExactly("PCIDEVICE_RDMA_RDMANODE_IO_PCI_0000_3B_00_2=0000:3b:00.2",
                "RDMA_DEVICE_PCI_0000_3B_00_2=" + a.rdmaDevice());

        JsonNode saved = new ObjectMapper().readTree(checkpoint.toFile());
        assertThat(saved.path("claims").get(0).path("uid").asText()).isEqualTo("uid-1");
        assertThat(saved.path("claims").get(0).path("devices")).hasSize(2);
    }

    /**
     * A claim whose read hangs in the API server holds no other claim up: another pod's claim is prepared and
     * unprepared meanwhile (each waited behind the hanging read, and kubelet's 45 s deadline passed for all).
     */
    @Test
    void aClaimWhoseReadHangsHoldsNoOtherClaimUp() throws Exception {
        ClaimPreparer preparer = preparer(host);
        reader.put("ns", "slow", allocated("uid-slow", ours("nic", VF_A)));
        reader.put("ns", "quick", allocated("uid-quick", ours("nic", VF_B)));
        java.util.concurrent.CountDownLatch apiServer = new java.util.concurrent.CountDownLatch(1);
        reader.hanging.put("ns/slow", apiServer);
        // Threads of its own: the common pool has one thread on a 2-CPU machine, and a JDK may run supplyAsync
        // there; the hanging read would then hold the quick claim's task, and every later test's.
        java.util.concurrent.ExecutorService pods = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            java.util.concurrent.Future<PrepareOutcome> slow = pods.submit(
                    () -> preparer.prepare(new ClaimRef("ns", "uid-slow", "slow")));
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> reader.reads >= 1);

            PrepareOutcome quick = pods.submit(() -> preparer.prepare(new ClaimRef("ns", "uid-quick", "quick")))
                    .get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(quick.error()).isEmpty();
            assertThat(preparer.unprepare(new ClaimRef("ns", "uid-quick", "quick"))).isEmpty();
            assertThat(slow).isNotDone();

            apiServer.countDown();
            assertThat(slow.get(10, java.util.concurrent.TimeUnit.SECONDS).devices())
                    .extracting(PreparedDevice::device).containsExactly(VF_A);
        } finally {
            apiServer.countDown();
            pods.shutdownNow();
        }
    }

    @Test
    void prepareIsIdempotentAndSurvivesARestartThenUnprepareRemovesEverything() throws Exception {
        reader.put("ns", "c", allocated("uid-1", ours("nic", VF_A)));
        ClaimRef claim = new ClaimRef("ns", "uid-1", "c");
        PrepareOutcome first = preparer(host).prepare(claim);
        assertThat(first.error()).isEmpty();

        // A new process: the claim is gone from the API server (pod deleted) but kubelet repeats Prepare.
        reader.remove("ns", "c");
        ClaimPreparer restarted = preparer(host);
        assertThat(restarted.prepare(claim)).isEqualTo(first);
        assertThat(restarted.preparedClaims()).extracting(PreparedClaims.Prepared::uid).containsExactly("uid-1");

        assertThat(restarted.unprepare(claim)).isEmpty();
        assertThat(restarted.unprepare(claim)).isEmpty();
        assertThat(cdiFiles()).isEmpty();
        assertThat(preparer(host).preparedClaims()).isEmpty();
        assertThat(preparer(host).unprepare(new ClaimRef("ns", "never-seen", "x"))).isEmpty();
    }

    @Test
    void aMissingCdiSpecIsWrittenAgainOnTheNextPrepare() throws Exception {
        reader.put("ns", "c", allocated("uid-1", ours("nic", VF_A)));
        ClaimPreparer p = preparer(host);
        PrepareOutcome first = p.prepare(new ClaimRef("ns", "uid-1", "c"));
        Files.delete(cdiDir.resolve(DRIVER + "-rdma_uid-1.json"));      // /var/run/cdi is a tmpfs: a reboot empties it
        assertThat(p.prepare(new ClaimRef("ns", "uid-1", "c"))).isEqualTo(first);
        assertThat(cdiDir.resolve(DRIVER + "-rdma_uid-1.json")).exists();
    }

    @Test
    void badClaimsAreRefusedOneByOneAndNothingIsWritten() throws Exception {
        ClaimPreparer p = preparer(host);
        reader.put("ns", "recreated", allocated("uid-new", ours("nic", VF_A)));
        reader.put("ns", "other-driver", allocated("uid-o", new Result("gpu", "gpu.example.com", "gpus", "gpu-0")));
        reader.put("ns", "gone", allocated("uid-g", ours("nic", VF_A), ours("nic", "pci-0000-3b-07-0")));
        reader.put("ns", "not-ours", allocated("uid-n", ours("nic", "mlx5_2")));

        assertThat(p.prepare(new ClaimRef("ns", "uid-x", "missing")).error()).hasValueSatisfying(e ->
                assertThat(e).contains("ns/missing not found"));
        assertThat(p.prepare(new ClaimRef("ns", "uid-old", "recreated")).error()).hasValueSatisfying(e ->
                assertThat(e).contains("has uid uid-new", "asked for uid-old"));
        assertThat(p.prepare(new ClaimRef("ns", "uid-o", "other-driver")).error()).hasValueSatisfying(e ->
                assertThat(e).contains("no allocation result for driver " + DRIVER));
        assertThat(p.prepare(new ClaimRef("ns", "uid-g", "gone")).error()).hasValueSatisfying(e ->
                assertThat(e).contains("pci-0000-3b-07-0", "no longer present"));
        assertThat(p.prepare(new ClaimRef("ns", "uid-n", "not-ours")).error()).hasValueSatisfying(e ->
                assertThat(e).contains("mlx5_2", "no longer present"));
        reader.failWith("connection refused");
        assertThat(p.prepare(new ClaimRef("ns", "uid-1", "any")).error()).hasValueSatisfying(e ->
                assertThat(e).contains("cannot read claim ns/any", "connection refused"));

        assertThat(cdiFiles()).isEmpty();
        assertThat(checkpoint).doesNotExist();
    }

    @Test
    void eachRefusalNamesItsReasonAndTheCollectorCountsItUnderThatReason() throws Exception {
        ClaimPreparer p = preparer(host);
        reader.put("ns", "recreated", allocated("uid-new", ours("nic", VF_A)));
        reader.put("ns", "other-driver", allocated("uid-o", new Result("gpu", "gpu.example.com", "gpus", "gpu-0")));
        reader.put("ns", "gone", allocated("uid-g", ours("nic", "pci-0000-3b-07-0")));
        reader.put("ns", "first", allocated("uid-1", ours("nic", VF_A)));
        reader.put("ns", "second", allocated("uid-2", ours("nic", VF_A)));
        DraStats stats = new DraStats();
        java.util.function.BiFunction<String, String, java.util.Optional<RefusalReason>> prepare = (uid, name) -> {
            PrepareOutcome outcome = p.prepare(new ClaimRef("ns", uid, name));
            stats.countPrepared(outcome);
            return outcome.reason();
        };

        assertThat(prepare.apply("uid-1", "first")).isEmpty();
        assertThat(prepare.apply("uid-x", "missing")).hasValue(RefusalReason.CLAIM_NOT_FOUND);
        assertThat(prepare.apply("uid-old", "recreated")).hasValue(RefusalReason.UID_MISMATCH);
        assertThat(prepare.apply("uid-o", "other-driver")).hasValue(RefusalReason.NOT_ALLOCATED_HERE);
        assertThat(prepare.apply("uid-g", "gone")).hasValue(RefusalReason.DEVICE_GONE);
        assertThat(prepare.apply("uid-2", "second")).hasValue(RefusalReason.DEVICE_HELD);
        reader.failWith("connection refused");
        assertThat(prepare.apply("uid-3", "any")).hasValue(RefusalReason.API_ERROR);

        var metrics = new DraCollector(new DraFigures() {
            public DraStats stats() {
                return stats;
            }

            public int preparedClaims() {
                return 1;
            }

            public java.util.Map<String, Long> sliceGenerations() {
                return java.util.Map.of();
            }
        }).collect();
        var refusals = metrics.stream().filter(m -> m.getMetadata().getName().equals("rdma_agent_dra_prepare_refusals"))
                .findFirst().orElseThrow().getDataPoints().stream().collect(java.util.stream.Collectors.toMap(
                        d -> d.getLabels().get("reason"),
                        d -> ((io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot) d)
                                .getValue()));
        assertThat(refusals).hasSize(RefusalReason.values().length).containsEntry("claim_not_found", 1.0)
                .containsEntry("uid_mismatch", 1.0).containsEntry("not_allocated_to_driver", 1.0)
                .containsEntry("device_gone", 1.0).containsEntry("device_held", 1.0).containsEntry("api_error", 1.0)
                .containsEntry("device_unusable", 0.0).containsEntry("write_failed", 0.0);
        assertThat(stats.claimsRefused.sum()).isEqualTo(6);
        assertThat(stats.claimsPrepared.sum()).isEqualTo(1);
    }

    @Test
    void aDeviceThatLeftTheNodeAfterAllocationIsRefused() throws Exception {
        reader.put("ns", "c", allocated("uid-1", ours("nic", VF_A)));
        HostSnapshot without = new HostSnapshot(host.revision() + 1, host.takenAt(), host.backend(), host.devices(),
                host.pciFunctions().stream().filter(f -> !f.address().toString().equals("0000:3b:00.2")).toList(),
                host.netDevices(), host.rdmaCm(), host.netnsMode(), host.problems());
        assertThat(preparer(without).prepare(new ClaimRef("ns", "uid-1", "c")).error()).hasValueSatisfying(e ->
                assertThat(e).contains(VF_A, "no longer present"));
    }

    @Test
    void aDeviceHeldThroughTheDevicePluginIsRefusedWithTheResourceName() throws Exception {
        devicePluginHeld.put("0000:3b:00.2", "rdma/sriov_a");
        reader.put("ns", "c", allocated("uid-1", ours("nic", VF_A)));
        assertThat(preparer(host).prepare(new ClaimRef("ns", "uid-1", "c")).error()).hasValueSatisfying(e ->
                assertThat(e).contains("0000:3b:00.2", "device-plugin resource rdma/sriov_a"));
        assertThat(cdiFiles()).isEmpty();
    }

    @Test
    void aDevicePreparedForAnotherClaimIsRefused() throws Exception {
        reader.put("ns", "first", allocated("uid-1", ours("nic", VF_A)));
        reader.put("ns", "second", allocated("uid-2", ours("nic", VF_A)));
        ClaimPreparer p = preparer(host);
        assertThat(p.prepare(new ClaimRef("ns", "uid-1", "first")).error()).isEmpty();
        assertThat(p.prepare(new ClaimRef("ns", "uid-2", "second")).error()).hasValueSatisfying(e ->
                assertThat(e).contains("prepared for claim ns/first"));
    }

    @Test
    void aDeviceOutsideThePoolsSelectorsIsRefused() throws Exception {
        String pf = host.pciFunction(PciAddress.parse("0000:3b:00.0").orElseThrow()).orElseThrow().netDevices().get(0);
        PoolDevices pool = new PoolDevices(new io.rdmanode.deviceplugin.Selectors(List.of(), List.of(), List.of(),
                List.of(), List.of(), io.rdmanode.deviceplugin.Selectors.pfSelectors("pfNames", List.of(pf + "#0")),
                List.of(), List.of(), Optional.empty()), () -> Optional.of(io.rdmanode.deviceplugin.testing
                .DevicePluginTesting.layer(io.rdmanode.deviceplugin.LayerSettings.DEFAULT)));
        ClaimPreparer p = new ClaimPreparer(DRIVER, reader, () -> host, pool, pci -> Optional.empty(),
                new ClaimCdiSpecs(cdiDir, DRIVER, new DevicePaths(Path.of("/dev"))), new PreparedClaims(checkpoint));
        reader.put("ns", "in", allocated("uid-in", ours("nic", VF_A)));
        reader.put("ns", "out", allocated("uid-out", ours("nic", VF_B)));
        assertThat(p.prepare(new ClaimRef("ns", "uid-in", "in")).error()).isEmpty();
        assertThat(p.prepare(new ClaimRef("ns", "uid-out", "out")).error()).hasValueSatisfying(e ->
                assertThat(e).contains(VF_B, "no longer selected by the pool"));
    }

    @Test
    void anUnreadableCheckpointStopsTheDriverNamingTheFile() throws Exception {
        Files.createDirectories(checkpoint.getParent());
        Files.writeString(checkpoint, "{\"version\": 1, \"claims\": [ {\"uid\": ");
        assertThatThrownBy(() -> preparer(host)).isInstanceOf(IOException.class)
                .hasMessageContaining(checkpoint.toString());
    }

    @Test
    void deviceNamesAreDnsLabelsOfThePciAddressBothWays() {
        PciAddress a = PciAddress.parse("0000:3b:00.2").orElseThrow();
        assertThat(DeviceNames.of(a)).isEqualTo("pci-0000-3b-00-2");
        assertThat(DeviceNames.parse("pci-0000-3b-00-2")).contains(a);
        assertThat(DeviceNames.parse("pci-0000-3B-00-2")).isEmpty();
        assertThat(DeviceNames.parse("mlx5_2")).isEmpty();
        assertThat(NodeDevice.of(host).keySet()).allMatch(n -> n.matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?"));
    }

    private List<Path> cdiFiles() throws IOException {
        if (!Files.exists(cdiDir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(cdiDir)) {
            return s.toList();
        }
    }

    @Test
    void aResultWhosePoolIsNotTheDevicesPoolIsAPerClaimErrorAndChangesNothing() throws Exception {
        PoolDevices pools = new PoolDevices(PoolDevicesTest.twoPools("ens1f0#0-7", "ens2f0#0-7"),
                () -> Optional.of(io.rdmanode.deviceplugin.testing.DevicePluginTesting.layer(
                        io.rdmanode.deviceplugin.LayerSettings.DEFAULT)));
        ClaimPreparer p = new ClaimPreparer(DRIVER, reader, () -> host, pools, pci -> Optional.empty(),
                new ClaimCdiSpecs(cdiDir, DRIVER, new DevicePaths(Path.of("/dev"))), new PreparedClaims(checkpoint));
        // VF_A is a VF of ens1f0: pool vfs-a. An allocation naming it in pool vfs-b is not this node's truth.
        reader.put("ns", "wrong", allocated("uid-w", new Result("nic", DRIVER, "vfs-b", VF_A)));
        PrepareOutcome wrong = p.prepare(new ClaimRef("ns", "uid-w", "wrong"));

        assertThat(wrong.error()).hasValueSatisfying(e -> assertThat(e)
                .contains(VF_A, "allocated from pool vfs-b", "in pool vfs-a"));
        assertThat(wrong.devices()).isEmpty();
        assertThat(checkpoint).doesNotExist();
        assertThat(cdiDir.resolve(DRIVER + "-rdma_uid-w.json")).doesNotExist();

        reader.put("ns", "right", allocated("uid-r", new Result("nic", DRIVER, "vfs-a", VF_A)));
        PrepareOutcome right = p.prepare(new ClaimRef("ns", "uid-r", "right"));
        assertThat(right.error()).isEmpty();
        assertThat(right.devices()).singleElement().satisfies(d -> assertThat(d.pool()).isEqualTo("vfs-a"));
    }
}
