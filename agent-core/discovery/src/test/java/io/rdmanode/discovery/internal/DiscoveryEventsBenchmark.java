// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

import io.rdmanode.agent.Ttar;
import io.rdmanode.discovery.RdmaPort.PortState;
import io.rdmanode.discovery.TopologyDiff;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.osgi.util.converter.Converters;

/**
 * Issue 23's event rows, run by {@code scripts/bench-discovery-events} (not a test; needs root): a net device
 * added and deleted with discovery reading the kernel's sysfs mounted at another path (as a DaemonSet mounts the
 * host's at {@code /host/sys}), against the same at {@code /sys} in the same run (interleaved); and an InfiniBand
 * port's state change on the recorded ConnectX-6 host with the sysfs backend and no verbs events (the port state
 * watch alone; goal 1 s). Times run from just before {@code ip(8)} is started (its fork and exec included, in both
 * columns) or the state file is written, to the listener's diff; the periodic rescan is off throughout.
 */
public final class DiscoveryEventsBenchmark {

    private static final String LINK = "rdtb" + (ProcessHandle.current().pid() % 10000);   // + m or s: 10 bytes

    private DiscoveryEventsBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        System.out.printf("java %s, %d CPUs, load average %s%n", System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), Files.readString(Path.of("/proc/loadavg")).trim());
        netdevRounds(rounds);
        portStateRounds(rounds);
    }

    private static void netdevRounds(int rounds) throws Exception {
        Path mountPoint = Files.createTempDirectory("rdt-sysfs-bench-");
        if (run("mount", "-t", "sysfs", "sysfs", mountPoint.toString()) != 0) {
            System.out.println("netdev rows skipped: cannot mount a sysfs (needs root)");
            Files.deleteIfExists(mountPoint);
            return;
        }
        // Each instance hears both links: each waits for a link of its own name, never for the other's.
        Timed other = new Timed(component(mountPoint.toString()), LINK + "m");
        Timed slashSys = new Timed(component("/sys"), LINK + "s");
        long[] atOther = new long[rounds * 2];
        long[] atSys = new long[rounds * 2];
        try {
            for (int i = 0; i < rounds; i++) {
                // A/B, then B/A: neither column always goes first.
                Timed first = i % 2 == 0 ? other : slashSys;
                Timed second = first == other ? slashSys : other;
                long[] a = first == other ? atOther : atSys;
                long[] b = first == other ? atSys : atOther;
                a[2 * i] = first.addLink();
                a[2 * i + 1] = first.deleteLink();
                b[2 * i] = second.addLink();
                b[2 * i + 1] = second.deleteLink();
            }
        } finally {
            other.close();
            slashSys.close();
            run("ip", "link", "del", LINK + "m");
            run("ip", "link", "del", LINK + "s");
            run("umount", "-l", mountPoint.toString());
            Files.deleteIfExists(mountPoint);
        }
        System.out.printf("netdev add/del -> listener diff, sysfsRoot at a sysfs mount point (%d changes): median"
                + " %.2f ms  p99 %.2f ms%n", atOther.length, ms(pct(atOther, 50)), ms(pct(atOther, 99)));
        System.out.printf("baseline: the same at /sys: median %.2f ms  p99 %.2f ms%n", ms(pct(atSys, 50)),
                ms(pct(atSys, 99)));
    }

    private static void portStateRounds(int rounds) throws Exception {
        Path dir = Files.createTempDirectory("rdt-ib-bench-");
        try {
            Ttar.unpack(Path.of(DiscoveryEventsBenchmark.class.getResource("/fixtures/sysfs/cx6-ib.ttar").toURI()),
                    dir);
            DiscoveryComponent c = new DiscoveryComponent(Converters.standardConverter().convert(Map.of(
                    "sysfsRoot", dir.resolve("sys").toString(), "devRoot", dir.resolve("dev").toString(),
                    "rescanInterval", 0L)).to(DiscoveryComponent.Config.class));
            BlockingQueue<TopologyDiff> diffs = new LinkedBlockingQueue<>();
            c.addListener((s, d) -> diffs.add(d));
            Path state = dir.resolve("sys/class/infiniband/mlx5_0/ports/1/state");
            long[] t = new long[rounds];
            try {
                for (int i = 0; i < rounds; i++) {
                    PortState next = i % 2 == 0 ? PortState.DOWN : PortState.ACTIVE;
                    diffs.clear();
                    long t0 = System.nanoTime();
                    Files.writeString(state, next == PortState.DOWN ? "1: DOWN\n" : "4: ACTIVE\n");
                    await(diffs, d -> d.portsChanged().stream().anyMatch(p -> p.after().state() == next));
                    t[i] = System.nanoTime() - t0;
                }
            } finally {
                c.stop();
            }
            System.out.printf("InfiniBand port state change -> listener diff, sysfs backend without verbs events"
                    + " (%d changes): median %.0f ms  p99 %.0f ms  max %.0f ms%n", rounds, ms(pct(t, 50)),
                    ms(pct(t, 99)), ms(pct(t, 100)));
        } finally {
            try (Stream<Path> all = Files.walk(dir)) {
                all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static DiscoveryComponent component(String sysfsRoot) {
        return new DiscoveryComponent(Converters.standardConverter().convert(Map.of("sysfsRoot", sysfsRoot,
                "devRoot", "/dev", "rescanInterval", 0L)).to(DiscoveryComponent.Config.class));
    }

    /** One discovery instance and the diffs it reports. */
    private static final class Timed implements AutoCloseable {
        private final DiscoveryComponent discovery;
        private final String link;
        private final BlockingQueue<TopologyDiff> diffs = new LinkedBlockingQueue<>();

        Timed(DiscoveryComponent discovery, String link) {
            this.discovery = discovery;
            this.link = link;
            discovery.addListener((s, d) -> diffs.add(d));
        }

        long addLink() throws Exception {
            diffs.clear();
            long t0 = System.nanoTime();
            // A dummy where the module is there; a veth pair (its peer beside it) where it is not.
            if (run("ip", "link", "add", link, "type", "dummy") != 0
                    && run("ip", "link", "add", link, "type", "veth", "peer", "name", link + "p") != 0) {
                throw new IllegalStateException("ip link add " + link + " (dummy, veth) failed");
            }
            await(diffs, d -> d.netDevicesAdded().contains(link));
            return System.nanoTime() - t0;
        }

        long deleteLink() throws Exception {
            diffs.clear();
            long t0 = System.nanoTime();
            run("ip", "link", "del", link);
            await(diffs, d -> d.netDevicesRemoved().contains(link));
            return System.nanoTime() - t0;
        }

        @Override
        public void close() {
            discovery.stop();
        }
    }

    private static void await(BlockingQueue<TopologyDiff> diffs, Predicate<TopologyDiff> wanted)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            TopologyDiff d = diffs.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (d == null) {
                throw new IllegalStateException("no such change within 10 s");
            }
            if (wanted.test(d)) {
                return;
            }
        }
    }

    private static int run(String... cmd) throws IOException, InterruptedException {
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start().waitFor();
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
}
