// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.RdmaPort.PortState;
import io.rdmanode.discovery.internal.events.DiscoveryEngine;
import io.rdmanode.discovery.internal.sysfs.SysfsRoot;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import io.rdmanode.agent.Ttar;
import io.rdmanode.verbs.AsyncEvent;
import io.rdmanode.verbs.AsyncEventType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.OptionalInt;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Prints figures (not a test): the discovery half of an InfiniBand port change on this machine, from a verbs
 * async event handed to {@link VerbsEventHints} (as the verbs event thread does) to a topology listener seeing
 * the new port state: debounce, incremental sysfs scan of the device, diff, notify. The recorded ConnectX-6 HDR
 * host stands in for the HCA (its port state file is flipped before each event, as the kernel would). The
 * Soft-RoCE VM test measures the whole path under emulation. Run from the repository root:
 * {@code ./mvnw -q -f agent-core/discovery/pom.xml test-compile exec:java -Dexec.classpathScope=test
 * -Dexec.mainClass=io.rdmanode.discovery.internal.verbs.VerbsEventLatencyBenchmark}
 */
public final class VerbsEventLatencyBenchmark {

    private VerbsEventLatencyBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        Path dir = Files.createTempDirectory(Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm")
                : Path.of(System.getProperty("java.io.tmpdir")), "verbs-event-bench");
        Ttar.unpack(Path.of(VerbsEventLatencyBenchmark.class.getResource("/fixtures/sysfs/cx6-ib.ttar").toURI()),
                dir);
        SysfsRoot root = new SysfsRoot(dir.resolve("sys"), dir.resolve("dev"));
        Path state = root.classInfiniband().resolve("mlx5_0/ports/1/state");
        BlockingQueue<Long> seen = new LinkedBlockingQueue<>();
        for (long debounce : new long[] {DiscoveryEngine.DEFAULT_DEBOUNCE_MS, 0}) {
            try (DiscoveryEngine engine = new DiscoveryEngine(new SysfsTopologySource(root,
                    () -> NetnsMode.unknown("bench")), 0)) {
                engine.retune(0, debounce);
                VerbsEventHints hints = new VerbsEventHints(engine::requestScan);
                engine.addListener((s, d) -> seen.add(System.nanoTime()));
                double[] ms = new double[rounds];
                for (int i = 0; i < rounds; i++) {
                    boolean down = i % 2 == 0;
                    Files.writeString(state, down ? "1: DOWN\n" : "4: ACTIVE\n");
                    long t0 = System.nanoTime();
                    hints.asyncEvent(new AsyncEvent("mlx5_0", down ? AsyncEventType.PORT_ERR
                            : AsyncEventType.PORT_ACTIVE, down ? 10 : 9, OptionalInt.of(1), Instant.now()));
                    Long t1 = seen.poll(5, TimeUnit.SECONDS);
                    PortState now = engine.snapshot().device("mlx5_0").orElseThrow().port(1).orElseThrow().state();
                    if (t1 == null || now != (down ? PortState.DOWN : PortState.ACTIVE)) {
                        throw new IllegalStateException("round " + i + ": no listener call with the new state ("
                                + (t1 == null ? "no call" : "state " + now) + ")");
                    }
                    ms[i] = (t1 - t0) / 1e6;
                }
                Arrays.sort(ms);
                System.out.printf("verbs event -> listener, eventDebounce=%d ms, %d rounds: median %.2f ms, p95 %.2f"
                        + " ms, max %.2f ms%n", debounce, rounds, ms[rounds / 2], ms[(int) (rounds * 0.95)],
                        ms[rounds - 1]);
            }
        }
    }
}
