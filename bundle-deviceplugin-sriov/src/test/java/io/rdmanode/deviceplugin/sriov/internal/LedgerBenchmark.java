// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.deviceplugin.testing.DevicePluginTesting;
import io.rdmanode.kubelet.testing.KubeletTestbed;
import io.rdmanode.kubelet.testing.PodDevicesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Figures for issue #20, run by {@code scripts/bench-ledger} (not a test). (1) {@code CYCLES} random actions of
 * {@link LedgerChaos} (admit, pod removal, pool edit, agent kill with the ledger kept/lost/half-written, kubelet
 * restart, hot swap) on the recorded ConnectX-5 host against the kubelet double's pod-resources API, counting after
 * each one the device IDs kubelet's book lists under two pods and the held VFs of a served resource without their
 * device-info file (after up to 5 s: the test layer reconciles every 300 ms). (2) On the generated 8 PF x 128 VF
 * host with all 1,024 VFs held by 128 pods: the layer's reconciliation at start (PodResources List over the Unix
 * socket + ledger file read and reconciled + the ledger written when it changed), with the ledger kept and lost,
 * against a PodResources List alone and a read of the ledger file alone, interleaved in the same rounds.
 */
public final class LedgerBenchmark {

    private static final Duration WAIT = Duration.ofSeconds(30);

    public static void main(String[] args) throws Exception {
        int cycles = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 11;
        long seed = args.length > 2 ? Long.parseLong(args[2]) : 20;
        Path parent = Path.of(Files.isDirectory(Path.of("/dev/shm")) ? "/dev/shm" : System.getProperty("java.io.tmpdir"));
        System.out.printf("java %s, %d CPUs, load average at start %s%n", System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), load());
        Path dir = Files.createTempDirectory(parent, "ledger-bench");
        try {
            cycles(dir.resolve("c"), cycles, seed);
            reconcileAtStart(dir.resolve("r"), rounds);
        } finally {
            delete(dir);
        }
        System.out.printf("load average at end %s%n", load());
    }

    private static void cycles(Path dir, int cycles, long seed) throws Exception {
        long doubles = 0;
        long missing = 0;
        long t0 = System.nanoTime();
        try (LedgerChaos chaos = new LedgerChaos(dir, seed)) {
            for (int i = 0; i < cycles; i++) {
                String action = chaos.step();
                Map<String, Set<String>> twice = chaos.doubleHeld();
                List<String> noFile = chaos.missingDeviceInfo(Duration.ofSeconds(5));
                if (!twice.isEmpty() || !noFile.isEmpty()) {
                    System.out.printf("cycle %d (%s): held twice %s, no device-info %s%n", i, action, twice, noFile);
                }
                doubles += twice.size();
                missing += noFile.size();
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf("%n%d cycles (seed %d) in %.0f s on the recorded 2 x 8 VF host: %s%n", cycles, seed,
                    seconds, chaos.counts());
            System.out.printf("| %-55s | %10s |%n", "figure", "value");
            System.out.printf("| %-55s | %10d |%n", "double allocations (IDs held by two pods, all checks)", doubles);
            System.out.printf("| %-55s | %10d |%n", "missing device-info files (after <= 5 s, all checks)", missing);
        }
    }

    private static void reconcileAtStart(Path dir, int rounds) throws Exception {
        SriovHost host = SriovHost.generated(dir.resolve("host"), 8, 128);
        Path ledger = dir.resolve("state/allocations");
        LayerSettings settings = new LayerSettings(new DevicePaths(host.devRoot()), List.of());
        try (KubeletTestbed kubelet = KubeletTestbed.start(dir, 5000, 2)) {
            kubelet.servePodResources(dir.resolve("pr.sock"));
            try (PodDevicesClient podDevices = kubelet.podDevices()) {
                DevicePluginLayer layer = DevicePluginTesting.layer(settings, ledger, podDevices);
                SriovPools pools = new SriovPools(host, layer, new RdmaVfLedger(dir.resolve("state/rdma-vfs")));
                pools.add(new SriovPoolSettings("all", 0, "rdma", "sriov_all", PreferredAllocator.Policy.SPREAD, false,
                        dir.resolve("devinfo")), SriovPoolDevicePlugin.matcher(Pools.config("all", "selectors.isRdma",
                        true)), kubelet.host());
                kubelet.awaitRegistrations("rdma/sriov_all", 1, WAIT);
                kubelet.plugin("rdma/sriov_all").awaitDevices(u -> u.size() == 1024, WAIT);
                for (int p = 0; p < 128; p++) {
                    kubelet.admit("default", "p" + p, "c", "rdma/sriov_all", 8);
                }
                int listed = podDevices.running().devices().size();
                pools.close();                                   // the agent stops; 128 pods hold 1,024 VFs
                DevicePluginTesting.close(layer);
                if (listed != 1024) {
                    throw new IllegalStateException("kubelet lists " + listed + " held VFs, expected 1024");
                }
                long[] list = new long[rounds];
                long[] read = new long[rounds];
                long[] kept = new long[rounds];
                long[] lost = new long[rounds];
                int keptWrites = 0;
                for (int r = 0; r < rounds; r++) {
                    long t = System.nanoTime();
                    int n = podDevices.running().devices().size();
                    list[r] = System.nanoTime() - t;
                    t = System.nanoTime();
                    int bytes = Files.readAllBytes(ledger).length;
                    read[r] = System.nanoTime() - t;
                    java.nio.file.attribute.FileTime before = Files.getLastModifiedTime(ledger);
                    kept[r] = start(settings, ledger, podDevices);
                    keptWrites += Files.getLastModifiedTime(ledger).equals(before) ? 0 : 1;
                    Files.delete(ledger);
                    lost[r] = start(settings, ledger, podDevices);
                    if (n != 1024 || bytes == 0) {
                        throw new IllegalStateException("round " + r + ": " + n + " listed, ledger " + bytes + " B");
                    }
                }
                System.out.printf("%nreconciliation at start, 1,024 VFs held by 128 pods (generated 8 PF x 128 VF host),"
                        + " %d rounds, ledger file %,d bytes:%n", rounds, Files.size(ledger));
                System.out.printf("| %-62s | %9s | %9s | %9s |%n", "", "median ms", "min ms", "max ms");
                row("start, ledger kept (List + read + reconcile; no write)", kept);
                row("start, ledger lost (List + reconcile + write 1,024)", lost);
                row("baseline: PodResources List alone (kept channel)", list);
                row("baseline: read the ledger file alone", read);
                System.out.printf("ledger file rewritten by %d of the %d starts with the ledger kept%n", keptWrites,
                        rounds);
                System.out.printf("ratio start / List: ledger kept %.2fx, ledger lost %.2fx (goal for start: <= 50 ms)%n",
                        (double) median(kept) / median(list), (double) median(lost) / median(list));
            }
        }
    }

    /** A new layer over the ledger file: its constructor reconciles with kubelet; returns how long that took. */
    private static long start(LayerSettings settings, Path ledger, PodDevicesClient podDevices) {
        long t = System.nanoTime();
        DevicePluginLayer layer = DevicePluginTesting.layer(settings, ledger, podDevices);
        long took = System.nanoTime() - t;
        int held = layer.held().size();
        DevicePluginTesting.close(layer);
        if (held != 1024) {
            throw new IllegalStateException("the layer holds " + held + " VFs after start, expected 1024");
        }
        return took;
    }

    private static void row(String name, long[] nanos) {
        System.out.printf("| %-62s | %9.2f | %9.2f | %9.2f |%n", name, median(nanos) / 1e6,
                Arrays.stream(nanos).min().orElse(0) / 1e6, Arrays.stream(nanos).max().orElse(0) / 1e6);
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static String load() throws java.io.IOException {
        return Files.readString(Path.of("/proc/loadavg")).trim();
    }

    private static void delete(Path dir) throws java.io.IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Iterator<Path> it = all.sorted(Comparator.reverseOrder()).iterator(); it.hasNext(); ) {
                Files.deleteIfExists(it.next());
            }
        }
    }
}
