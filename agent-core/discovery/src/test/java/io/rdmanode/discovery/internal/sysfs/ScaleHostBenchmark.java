// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.discovery.internal.events.TopologyDiffsAccess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;

/**
 * Prints figures (not a test): full discovery of the generated 8 PFs x 128 VFs host, an incremental update
 * after one VF's port goes down (scan + diff), and as a baseline the raw cost of walking the same tree.
 * Run from the repository root:
 * {@code ./mvnw -q -f agent-core/discovery/pom.xml test-compile exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.rdmanode.discovery.internal.sysfs.ScaleHostBenchmark}
 */
public final class ScaleHostBenchmark {

    private ScaleHostBenchmark() {
    }

    public static void main(String[] args) throws IOException {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        // sysfs lives in memory: generate the host on tmpfs when there is one, so the figures measure the
        // scanner rather than a disk file system's metadata speed (second argument: another parent dir).
        Path parent = Path.of(args.length > 1 ? args[1] : Files.isDirectory(Path.of("/dev/shm")) ? "/dev/shm"
                : System.getProperty("java.io.tmpdir"));
        Path dir = Files.createTempDirectory(parent, "scale-host");
        System.out.println("generating the scale host under " + dir);
        FixtureHosts.scale(dir, 8, 128);
        SysfsRoot root = new SysfsRoot(dir.resolve("sys"), dir.resolve("dev"));
        SysfsTopologySource source = new SysfsTopologySource(root, () -> NetnsMode.unknown("bench"));
        HostSnapshot s = source.scan();
        System.out.printf("scale host: %d RDMA devices, %d PCI functions, %d netdevs, %d problems%n",
                s.devices().size(), s.pciFunctions().size(), s.netDevices().size(), s.problems().size());
        double[] walk = new double[rounds];
        double[] full = new double[rounds];
        double[] incr = new double[rounds];
        PciAddress vf = s.pciFunctions().stream().filter(f -> f.isVirtualFunction()).skip(500).findFirst()
                .orElseThrow().address();
        String ibdev = s.pciFunction(vf).orElseThrow().rdmaDevices().get(0);
        Path state = root.classInfiniband().resolve(ibdev + "/ports/1/state");
        for (int i = 0; i < rounds; i++) {
            long t = System.nanoTime();
            long entries;
            try (Stream<Path> w = Files.walk(root.sys())) {
                entries = w.count();
            }
            walk[i] = ms(t);
            t = System.nanoTime();
            HostSnapshot before = source.scan();
            full[i] = ms(t);
            Files.writeString(state, i % 2 == 0 ? "1: DOWN\n" : "4: ACTIVE\n");
            t = System.nanoTime();
            HostSnapshot after = source.update(new ScanHints().pciFunction(vf));
            int changed = TopologyDiffsAccess.portsChanged(before, after);
            incr[i] = ms(t);
            if (changed != 1 || i == 0) {
                System.out.printf("round %d: walk of %d entries, diff found %d port change(s)%n", i, entries, changed);
            }
        }
        report("baseline: Files.walk of /sys tree", walk);
        report("full discovery (scan)", full);
        report("incremental after one VF change (scan + diff)", incr);
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    private static double ms(long t0) {
        return (System.nanoTime() - t0) / 1e6;
    }

    private static void report(String what, double[] v) {
        double[] w = Arrays.copyOfRange(v, v.length / 3, v.length);     // first third is JIT warm-up
        Arrays.sort(w);
        System.out.printf("%-48s median %7.1f ms  min %7.1f ms  max %7.1f ms  (first round %.1f ms)%n", what,
                w[w.length / 2], w[0], w[w.length - 1], v[0]);
    }
}
