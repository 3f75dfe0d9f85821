// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.events;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaPort;
import io.rdmanode.discovery.internal.ScanHints;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the state of InfiniBand ports by reading only their {@code ports/N/state} and {@code phys_state} files.
 * An InfiniBand port has no netdev, so a cable pulled or a subnet manager bringing it up raises neither a uevent
 * nor an rtnetlink message; without verbs async events (no libibverbs, or a device they do not cover) it would
 * wait for the periodic full rescan. RoCE ports follow their netdev, which rtnetlink reports, and are not read.
 *
 * <p>Adaptive: each round's cost sets the next delay ({@value #COST_FACTOR}× the cost, between
 * {@value #MIN_DELAY_MS} and {@value #MAX_DELAY_MS} ms), so a host with a few ports sees a change within a quarter
 * of a second and one with hundreds spends about 1 % of a core, still well within a second. A host without
 * InfiniBand ports reads nothing. A difference from the snapshot asks for a scan of that device once per new
 * value (the scan, not this watch, decides what changed).
 */
public final class PortStateWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PortStateWatch.class);
    static final long MIN_DELAY_MS = 250;
    static final long MAX_DELAY_MS = 750;
    static final int COST_FACTOR = 100;

    private final Supplier<HostSnapshot> snapshot;
    private final Supplier<Set<String>> coveredByVerbs;
    private final Consumer<ScanHints> sink;
    private final ScheduledExecutorService timer;
    private final ByteBuffer buffer = ByteBuffer.allocate(64);       // "4: ACTIVE\n"; read on the timer thread only
    private final Map<String, Integer> hinted = new HashMap<>();     // port key -> state codes last asked about
    private final LongAdder rounds = new LongAdder();
    private final LongAdder changes = new LongAdder();
    private volatile Path classInfiniband;
    private volatile int portsWatched;
    private volatile long delayMs = MIN_DELAY_MS;

    /**
     * @param classInfiniband {@code <sysfsRoot>/class/infiniband}
     * @param coveredByVerbs  devices whose verbs async events report port changes already
     * @param sink            where a changed device's scan is asked for (the engine's hint)
     */
    public PortStateWatch(Path classInfiniband, Supplier<HostSnapshot> snapshot, Supplier<Set<String>> coveredByVerbs,
                          Consumer<ScanHints> sink) {
        this.classInfiniband = classInfiniband;
        this.snapshot = snapshot;
        this.coveredByVerbs = coveredByVerbs;
        this.sink = sink;
        ScheduledThreadPoolExecutor ex = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "rdma-agent-discovery-portwatch");
            t.setDaemon(true);
            return t;
        });
        this.timer = ex;
        timer.schedule(this::round, MIN_DELAY_MS, TimeUnit.MILLISECONDS);
    }

    /** Another sysfs root: read from the next round. */
    public void retarget(Path nextClassInfiniband) {
        classInfiniband = nextClassInfiniband;
    }

    private void round() {
        long t0 = System.nanoTime();
        try {
            readAll();
        } catch (RuntimeException e) {
            LOG.warn("port state watch round failed: {}", e.toString());
        }
        long costMs = (System.nanoTime() - t0) / 1_000_000;
        delayMs = Math.max(MIN_DELAY_MS, Math.min(MAX_DELAY_MS, costMs * COST_FACTOR));
        rounds.increment();
        if (!timer.isShutdown()) {
            timer.schedule(this::round, delayMs, TimeUnit.MILLISECONDS);
        }
    }

    private void readAll() {
        Set<String> verbs = coveredByVerbs.get();
        Path root = classInfiniband;
        int watched = 0;
        for (RdmaDevice d : snapshot.get().devices()) {
            if (verbs.contains(d.name())) {
                continue;
            }
            for (RdmaPort p : d.ports()) {
                if (p.linkLayer() != RdmaPort.LinkLayer.INFINIBAND) {
                    continue;
                }
                watched++;
                Path dir = root.resolve(d.name()).resolve("ports").resolve(Integer.toString(p.number()));
                int state = code(dir.resolve("state"));
                int phys = code(dir.resolve("phys_state"));
                if (state < 0 || phys < 0) {
                    continue;                       // the device is going: its uevent brings the scan
                }
                String key = d.name() + '/' + p.number();
                int seen = state << 8 | phys;
                boolean same = state == p.state().ordinal() && phys == p.physState().ordinal();
                if (same) {
                    hinted.remove(key);
                } else if (!Integer.valueOf(seen).equals(hinted.put(key, seen))) {
                    changes.increment();
                    LOG.debug("port {} state {} phys_state {}: rescanning the device", key, state, phys);
                    sink.accept(new ScanHints().rdmaDevice(d.name()));
                }
            }
        }
        portsWatched = watched;
    }

    /** The leading number of {@code "4: ACTIVE"}, read with one open and one read into the reused buffer. */
    private int code(Path file) {
        buffer.clear();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ch.read(buffer);
        } catch (IOException e) {
            return -1;
        }
        int n = 0;
        int digits = 0;
        for (int i = 0; i < buffer.position(); i++) {
            byte b = buffer.get(i);
            if (b < '0' || b > '9') {
                break;
            }
            n = n * 10 + (b - '0');
            digits++;
        }
        return digits == 0 ? -1 : n;
    }

    /** For {@code /status}: ports read per round, the current delay, rounds and changes seen. */
    public Map<String, Object> status() {
        return Map.of("portsWatched", portsWatched, "delayMs", delayMs, "rounds", rounds.sum(),
                "changes", changes.sum());
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
