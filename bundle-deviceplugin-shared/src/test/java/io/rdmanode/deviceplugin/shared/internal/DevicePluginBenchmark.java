// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.grpc.ManagedChannel;
import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.TopologyDiff;
import io.rdmanode.kubelet.internal.FakeKubelet;
import io.rdmanode.kubelet.internal.HostSettings;
import io.rdmanode.kubelet.internal.KubeletDevicePluginHost;
import io.rdmanode.kubelet.internal.UdsTransport;
import io.rdmanode.kubelet.internal.v1beta1.AllocateRequest;
import io.rdmanode.kubelet.internal.v1beta1.ContainerAllocateRequest;
import io.rdmanode.kubelet.internal.v1beta1.DevicePluginGrpc;
import io.rdmanode.kubelet.internal.v1beta1.Empty;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * Figures for issue #4, run by {@code scripts/bench-deviceplugin} (not a test): Allocate latency with 50
 * concurrent kubelet clients over the plugin's Unix socket against a no-op RPC on the same socket; device
 * change (a port goes down in the recorded host) to the ListAndWatch update at the client; kubelet restart to
 * re-registration. Everything runs in this JVM with the real host, pool, sysfs backend and gRPC over UDS.
 */
public final class DevicePluginBenchmark {

    private static final int CLIENTS = 50;

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 40;
        Path dir = Files.createTempDirectory("dp-bench");
        RecordedHostDiscovery discovery = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir.resolve("host"));
        Path plugins = Files.createDirectories(dir.resolve("dp"));
        FakeKubelet kubelet = new FakeKubelet(plugins).start();
        KubeletDevicePluginHost host = new KubeletDevicePluginHost(new HostSettings(plugins,
                plugins.resolve("kubelet.sock"), 5000, 5000, 60_000, 2));
        DevicePluginLayer layer = DevicePluginLayer.create(new LayerSettings(DevicePaths.DEFAULT, List.of()));
        SharedPoolRegistry registry = new SharedPoolRegistry(layer);
        long[] listenerAt = new long[1];
        discovery.addListener((RdmaTopologyListener) (HostSnapshot s, TopologyDiff d) -> listenerAt[0] = System.nanoTime());
        new SharedPoolDevicePlugin(Pools.config("hca_all", "rdmaHcaMax", 1000, "selectors.vendors",
                new String[] {"15b3"}), discovery, host, layer, registry);
        new SharedPoolDevicePlugin(Pools.config("pf0", "rdmaHcaMax", 100, "selectors.ifNames",
                new String[] {"ens1f0"}), discovery, host, layer, registry);
        kubelet.awaitRegistrations("rdma/hca_all", 1, Duration.ofSeconds(10));
        kubelet.awaitRegistrations("rdma/pf0", 1, Duration.ofSeconds(10));
        System.out.printf("java %s, %d CPUs, load average %s%n", System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), Files.readString(Path.of("/proc/loadavg")).trim());

        allocate(plugins.resolve("rdma-node-agent.rdma_hca_all.sock"), calls);
        deviceChange(discovery, kubelet, listenerAt, rounds);
        restarts(kubelet, rounds);

        host.close();
        kubelet.close();
    }

    private static void allocate(Path socket, int calls) throws Exception {
        AllocateRequest request = AllocateRequest.newBuilder().addContainerRequests(ContainerAllocateRequest
                .newBuilder().addDevicesIds("hca_all-7")).build();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        try (UdsTransport transport = new UdsTransport(2, "bench-client", pool)) {
            List<ManagedChannel> channels = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                channels.add(transport.dial(socket));
            }
            // Warm-up of both, then interleaved measured runs so load from the machine hits both alike.
            run(pool, channels, calls / 4, stub -> stub.getDevicePluginOptions(Empty.getDefaultInstance()));
            run(pool, channels, calls / 4, stub -> stub.allocate(request));
            long[] base = run(pool, channels, calls, stub -> stub.getDevicePluginOptions(Empty.getDefaultInstance()));
            long[] alloc = run(pool, channels, calls, stub -> stub.allocate(request));
            long[] base2 = run(pool, channels, calls, stub -> stub.getDevicePluginOptions(Empty.getDefaultInstance()));
            long[] alloc2 = run(pool, channels, calls, stub -> stub.allocate(request));
            base = concat(base, base2);
            alloc = concat(alloc, alloc2);
            System.out.printf("Allocate, %d clients x %d calls over the UDS: p50 %.3f ms  p99 %.3f ms  max %.3f ms%n",
                    CLIENTS, 2 * calls, ms(pct(alloc, 50)), ms(pct(alloc, 99)), ms(pct(alloc, 100)));
            System.out.printf("baseline GetDevicePluginOptions (no-op RPC), same clients: p50 %.3f ms  p99 %.3f ms%n",
                    ms(pct(base, 50)), ms(pct(base, 99)));
            System.out.printf("ratio Allocate / no-op RPC: p50 %.2fx  p99 %.2fx%n",
                    (double) pct(alloc, 50) / pct(base, 50), (double) pct(alloc, 99) / pct(base, 99));
            channels.forEach(ManagedChannel::shutdownNow);
        } finally {
            pool.shutdownNow();
        }
    }

    private static long[] run(ExecutorService pool, List<ManagedChannel> channels, int calls,
                              Consumer<DevicePluginGrpc.DevicePluginBlockingStub> call) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<long[]>> results = new ArrayList<>();
        for (ManagedChannel channel : channels) {
            DevicePluginGrpc.DevicePluginBlockingStub stub = DevicePluginGrpc.newBlockingStub(channel);
            results.add(pool.submit(() -> {
                start.await();
                long[] t = new long[calls];
                for (int i = 0; i < calls; i++) {
                    long t0 = System.nanoTime();
                    call.accept(stub);
                    t[i] = System.nanoTime() - t0;
                }
                return t;
            }));
        }
        start.countDown();
        long[] all = new long[0];
        for (Future<long[]> f : results) {
            all = concat(all, f.get());
        }
        return all;
    }

    private static void deviceChange(RecordedHostDiscovery discovery, FakeKubelet kubelet, long[] listenerAt, int rounds) {
        FakeKubelet.PluginConnection pf0 = kubelet.plugin("rdma/pf0");
        long[] total = new long[rounds];
        long[] scan = new long[rounds];
        long[] push = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            boolean down = i % 2 == 0;
            int before = pf0.updates().size();
            long t0 = System.nanoTime();
            discovery.portState("mlx5_0", 1, down ? "1: DOWN" : "4: ACTIVE");
            discovery.rescan();
            String want = down ? "Unhealthy" : "Healthy";
            pf0.awaitUpdate(u -> u.getDevices(0).getHealth().equals(want), Duration.ofSeconds(10));
            List<Long> at = pf0.updateNanos();
            long received = at.get(at.size() - 1);
            if (at.size() != before + 1) {
                throw new IllegalStateException("expected exactly one update, saw " + (at.size() - before));
            }
            total[i] = received - t0;
            scan[i] = listenerAt[0] - t0;
            push[i] = received - listenerAt[0];
        }
        System.out.printf("port down/up in the recorded host -> ListAndWatch update at the client (%d changes):"
                + " p50 %.2f ms  p99 %.2f ms%n", rounds, ms(pct(total, 50)), ms(pct(total, 99)));
        System.out.printf("  of which full sysfs rescan (write to listener call): p50 %.2f ms; listener -> client:"
                + " p50 %.3f ms  p99 %.3f ms%n", ms(pct(scan, 50)), ms(pct(push, 50)), ms(pct(push, 99)));
        System.out.printf("  ratio end-to-end / rescan alone: p50 %.2fx%n", (double) pct(total, 50) / pct(scan, 50));
    }

    private static void restarts(FakeKubelet kubelet, int rounds) {
        long[] delay = new long[rounds];
        long[] all = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            long before = kubelet.registrations("rdma/pf0");
            long beforeAll = kubelet.registrations("rdma/hca_all");
            kubelet.restart();
            long created = kubelet.startedNanos();
            FakeKubelet.Registration a = kubelet.awaitRegistrations("rdma/pf0", before + 1, Duration.ofSeconds(5));
            FakeKubelet.Registration b = kubelet.awaitRegistrations("rdma/hca_all", beforeAll + 1, Duration.ofSeconds(5));
            delay[i] = Math.min(a.nanos(), b.nanos()) - created;
            all[i] = Math.max(a.nanos(), b.nanos()) - created;
        }
        System.out.printf("kubelet restart (new kubelet.sock) -> first Register (%d restarts): p50 %.2f ms  p99 %.2f ms"
                + "  max %.2f ms%n", rounds, ms(pct(delay, 50)), ms(pct(delay, 99)), ms(pct(delay, 100)));
        System.out.printf("  -> both pools registered: p50 %.2f ms  max %.2f ms; ratio max / 1 s budget: %.3f%n",
                ms(pct(all, 50)), ms(pct(all, 100)), pct(all, 100) / 1e9);
    }

    private static long pct(long[] values, int p) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    private static long[] concat(long[] a, long[] b) {
        long[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
