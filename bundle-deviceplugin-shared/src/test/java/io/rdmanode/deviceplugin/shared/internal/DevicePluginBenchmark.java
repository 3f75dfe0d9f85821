// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.TopologyDiff;
import io.rdmanode.kubelet.DevicePluginHost;
import io.rdmanode.kubelet.testing.KubeletTestbed;
import io.rdmanode.kubelet.testing.PluginClients;
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
import java.util.function.IntFunction;

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
        // Third argument: interleaved (no-op RPC, Allocate) pairs of runs; percentiles are over all of them.
        int allocateRounds = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        Path dir = Files.createTempDirectory("dp-bench");
        RecordedHostDiscovery discovery = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir.resolve("host"));
        // The host admits all 50 clients' calls at once (shipped: 8 per resource), with headroom: a call's slot frees
        // when the server closes it, which can be after its client has the answer and sent the next call.
        KubeletTestbed kubelet = KubeletTestbed.start(dir, 5000, 2, 2 * CLIENTS);
        DevicePluginHost host = kubelet.host();
        DevicePluginLayer layer = io.rdmanode.deviceplugin.testing.DevicePluginTesting.layer(new LayerSettings(DevicePaths.DEFAULT, List.of()));
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

        allocate(kubelet.pluginSocket("rdma/hca_all"), calls, allocateRounds);
        deviceChange(discovery, kubelet, listenerAt, rounds);
        restarts(kubelet, rounds);

        kubelet.close();
    }

    private static void allocate(Path socket, int calls, int allocateRounds) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        try (PluginClients clients = PluginClients.dial(socket, CLIENTS, 2, "bench-client", pool)) {
            IntFunction<Runnable> options = clients::optionsCall;
            IntFunction<Runnable> allocate = c -> clients.allocateCall(c, "hca_all-7");
            // Warm-up of both, then interleaved measured runs so load from the machine hits both alike.
            run(pool, clients, calls / 4, options);
            run(pool, clients, calls / 4, allocate);
            long[] base = new long[0];
            long[] alloc = new long[0];
            for (int r = 0; r < allocateRounds; r++) {
                base = concat(base, run(pool, clients, calls, options));
                alloc = concat(alloc, run(pool, clients, calls, allocate));
            }
            System.out.printf("Allocate, %d clients x %d calls over the UDS: p50 %.3f ms  p99 %.3f ms  max %.3f ms%n",
                    CLIENTS, allocateRounds * calls, ms(pct(alloc, 50)), ms(pct(alloc, 99)), ms(pct(alloc, 100)));
            System.out.printf("baseline GetDevicePluginOptions (no-op RPC), same clients: p50 %.3f ms  p99 %.3f ms%n",
                    ms(pct(base, 50)), ms(pct(base, 99)));
            System.out.printf("ratio Allocate / no-op RPC: p50 %.2fx  p99 %.2fx%n",
                    (double) pct(alloc, 50) / pct(base, 50), (double) pct(alloc, 99) / pct(base, 99));
        } finally {
            pool.shutdownNow();
        }
    }

    /** {@code calls} timed calls on every connection at once; {@code call} prepares one connection's call. */
    private static long[] run(ExecutorService pool, PluginClients clients, int calls, IntFunction<Runnable> call)
            throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<long[]>> results = new ArrayList<>();
        for (int c = 0; c < clients.connections(); c++) {
            Runnable rpc = call.apply(c);
            results.add(pool.submit(() -> {
                start.await();
                long[] t = new long[calls];
                for (int i = 0; i < calls; i++) {
                    long t0 = System.nanoTime();
                    rpc.run();
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

    private static void deviceChange(RecordedHostDiscovery discovery, KubeletTestbed kubelet, long[] listenerAt,
                                     int rounds) {
        KubeletTestbed.Plugin pf0 = kubelet.plugin("rdma/pf0");
        long[] total = new long[rounds];
        long[] scan = new long[rounds];
        long[] push = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            boolean down = i % 2 == 0;
            int before = pf0.updates();
            long t0 = System.nanoTime();
            discovery.portState("mlx5_0", 1, down ? "1: DOWN" : "4: ACTIVE");
            discovery.rescan();
            boolean healthy = !down;
            pf0.awaitDevices(u -> u.get(0).healthy() == healthy, Duration.ofSeconds(10));
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

    private static void restarts(KubeletTestbed kubelet, int rounds) {
        long[] delay = new long[rounds];
        long[] all = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            long before = kubelet.registrations("rdma/pf0");
            long beforeAll = kubelet.registrations("rdma/hca_all");
            kubelet.restartKubelet();
            long created = kubelet.kubeletStartedNanos();
            long a = kubelet.awaitRegistrationNanos("rdma/pf0", before + 1, Duration.ofSeconds(5));
            long b = kubelet.awaitRegistrationNanos("rdma/hca_all", beforeAll + 1, Duration.ofSeconds(5));
            delay[i] = Math.min(a, b) - created;
            all[i] = Math.max(a, b) - created;
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
