// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.grpc.ManagedChannel;
import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import io.rdmanode.kubelet.testing.UnixSockets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import io.rdmanode.dra.internal.v1.Claim;
import io.rdmanode.dra.internal.v1.NodePrepareResourcesRequest;
import io.rdmanode.dra.internal.v1.NodeUnprepareResourcesRequest;
import io.rdmanode.dra.internal.v1.DRAPluginGrpc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Figures for issue 24, run by {@code scripts/bench-dra} (not a test: it asserts nothing and runs only with
 * {@code -Ddra.bench=true}). NodePrepareResources over the driver's real Unix socket for claims of 1 and 8 VFs of
 * the recorded ConnectX-5 host, each claim read from an API server (fabric8's mock server in CRUD mode, over
 * HTTP on localhost), its CDI spec and the checkpoint written (fsync) — against an empty NodePrepareResources on
 * the same socket, the three interleaved round by round; then the time to publish 1,024 devices (8 slices) and to
 * republish after one device changed.
 */
@EnableKubernetesMockClient(crud = true)
@EnabledIfSystemProperty(named = "dra.bench", matches = "true")
class DraBench {

    private static final String DRIVER = DraSettings.DEFAULT_DRIVER;
    private static final int ROUNDS = Integer.getInteger("dra.bench.rounds", 200);

    KubernetesClient client;

    @TempDir
    Path dir;

    @Test
    void prepareLatencyAndSlicePublishing() throws Exception {
        HostSnapshot host = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir.resolve("host")).snapshot();
        List<String> names = new ArrayList<>(PoolDevices.all().of(host).keySet());
        names.sort(null);
        if (names.size() < 8) {
            throw new IllegalStateException("the recorded host has " + names.size() + " devices, 8 needed");
        }
        for (int i = 0; i < ROUNDS + 20; i++) {
            claim("one-" + i, names.subList(0, 1));
            claim("eight-" + i, names.subList(0, 8));
        }
        ClaimPreparer preparer = new ClaimPreparer(DRIVER, new Fabric8ClaimReader(client), () -> host,
                PoolDevices.all(), pci -> Optional.empty(), new ClaimCdiSpecs(dir.resolve("cdi"), DRIVER,
                new DevicePaths(Path.of("/dev"))), new PreparedClaims(dir.resolve("state/dra-prepared.json")));
        UnixSockets.Servers servers = new UnixSockets.Servers();
        UnixSockets.Client kubelet = new UnixSockets.Client(1, "bench-kubelet", Executors.newCachedThreadPool());
        Path socket = Files.createTempDirectory(Path.of("/tmp"), "drab").resolve("dra.sock");
        try (var served = servers.serve(socket, DraSockets.OWNER_ONLY, List.of(new DraPluginService(preparer)))) {
            ManagedChannel ch = kubelet.dial(socket);
            var stub = DRAPluginGrpc.newBlockingStub(ch);
            long[] noop = new long[ROUNDS];
            long[] one = new long[ROUNDS];
            long[] eight = new long[ROUNDS];
            for (int i = -20; i < ROUNDS; i++) {
                int k = i + 20;
                long t0 = System.nanoTime();
                stub.nodePrepareResources(NodePrepareResourcesRequest.getDefaultInstance());
                long t1 = System.nanoTime();
                prepare(stub, "one-" + k);
                long t2 = System.nanoTime();
                unprepare(stub, "one-" + k);
                long t3 = System.nanoTime();
                prepare(stub, "eight-" + k);
                long t4 = System.nanoTime();
                unprepare(stub, "eight-" + k);
                if (i >= 0) {
                    noop[i] = t1 - t0;
                    one[i] = t2 - t1;
                    eight[i] = t4 - t3;
                }
            }
            ch.shutdownNow();
            System.out.printf("java %s, %d CPUs, load average %s%n", System.getProperty("java.version"),
                    Runtime.getRuntime().availableProcessors(), Files.readString(Path.of("/proc/loadavg")).trim());
            System.out.printf("NodePrepareResources over the driver's Unix socket, %d interleaved rounds:%n", ROUNDS);
            row("empty request (no-op baseline)", noop, noop);
            row("claim of 1 VF", one, noop);
            row("claim of 8 VFs", eight, noop);
        } finally {
            kubelet.close(2000);
            servers.stop();
        }

        List<io.fabric8.kubernetes.api.model.resource.v1.Device> devices = IntStream.range(0, 1024)
                .mapToObj(i -> new DeviceBuilder().withName(String.format("pci-0000-%02x-%02x-%d", i / 256 + 0x31,
                        (i / 8) % 32, i % 8)).build()).toList();
        long[] first = new long[5];
        long[] again = new long[5];
        for (int r = 0; r < 5; r++) {
            SlicePublisher publisher = new SlicePublisher(client, DRIVER, "node-" + r);
            long t0 = System.nanoTime();
            SlicePublisher.Published p = publisher.publish("pool-" + r, devices);
            long t1 = System.nanoTime();
            List<io.fabric8.kubernetes.api.model.resource.v1.Device> edited = new ArrayList<>(devices);
            edited.remove(0);
            publisher.publish("pool-" + r, edited);
            long t2 = System.nanoTime();
            first[r] = t1 - t0;
            again[r] = t2 - t1;
            if (r == 0) {
                System.out.printf("publish 1,024 devices: %d slices of generation %d%n", p.slices(), p.generation());
            }
        }
        System.out.printf("  first publish (create): median %.1f ms over 5 pools%n", median(first) / 1e6);
        System.out.printf("  republish after one device left (new generation, old slices deleted): median %.1f ms%n",
                median(again) / 1e6);
    }

    private void claim(String name, List<String> devices) {
        List<DeviceRequestAllocationResult> results = devices.stream().map(d -> new DeviceRequestAllocationResultBuilder()
                .withRequest("nic").withDriver(DRIVER).withPool("rdma").withDevice(d).build()).toList();
        client.resource(new ResourceClaimBuilder().withMetadata(new ObjectMetaBuilder().withNamespace("ns")
                .withName(name).build()).withNewStatus().withNewAllocation().withNewDevices().withResults(results)
                .endDevices().endAllocation().endStatus().build()).create();
    }

    private String uid(String name) {
        return client.resources(io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim.class).inNamespace("ns")
                .withName(name).get().getMetadata().getUid();
    }

    private void prepare(DRAPluginGrpc.DRAPluginBlockingStub stub, String name) {
        var answer = stub.nodePrepareResources(NodePrepareResourcesRequest.newBuilder()
                .addClaims(Claim.newBuilder().setNamespace("ns").setName(name).setUid(uid(name))).build());
        answer.getClaimsMap().values().forEach(c -> {
            if (!c.getError().isEmpty()) {
                throw new IllegalStateException(name + ": " + c.getError());
            }
        });
    }

    private void unprepare(DRAPluginGrpc.DRAPluginBlockingStub stub, String name) {
        stub.nodeUnprepareResources(NodeUnprepareResourcesRequest.newBuilder()
                .addClaims(Claim.newBuilder().setNamespace("ns").setName(name).setUid(uid(name))).build());
    }

    private static void row(String what, long[] sample, long[] baseline) {
        System.out.printf("  %-32s p50 %7.3f ms  p99 %7.3f ms  (%.2fx / %.2fx the no-op)%n", what,
                pct(sample, 50) / 1e6, pct(sample, 99) / 1e6, pct(sample, 50) / pct(baseline, 50),
                pct(sample, 99) / pct(baseline, 99));
    }

    private static double pct(long[] v, int p) {
        long[] s = v.clone();
        Arrays.sort(s);
        return s[Math.min(s.length - 1, (int) Math.ceil(p / 100.0 * s.length) - 1)];
    }

    private static double median(long[] v) {
        return pct(v, 50);
    }
}
