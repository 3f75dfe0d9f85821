// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.posix.Posix;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

/**
 * The one router thread that scans every live mailbox for REQ_DONE. Busy-waiting forever would take a core from
 * the clients that spin on the same mailboxes (fatal on a 2-core host), so after a request it backs off in steps:
 * plain spins, Thread.onSpinWait, Thread.yield, then parks with a doubling pause up to a bound. The thread's CPU
 * time is read from the JVM and exported, with scan and park counts, so the cost of the latency is visible. After a
 * second without any request the park bound grows twentyfold (2 ms by default): an idle router then wakes far
 * less often, and the first request after a pause waits at most that long. The thread's timer slack is set to
 * {@link #TIMER_SLACK_NANOS}: with the kernel's default of 50 us every park, even of 1 us, took 60 us or more, so a
 * client arriving while the poller had just parked waited that long for its answer.
 */
public final class MailboxPoller implements AutoCloseable {
    private static final long DEEP_IDLE_NANOS = 1_000_000_000L;
    private static final long DEEP_IDLE_FACTOR = 20;
    static final long TIMER_SLACK_NANOS = 1_000;
    private final FastPath fastPath;
    private volatile PollerSettings settings;
    private final LongConsumer timers;
    private final ConcurrentLinkedQueue<Mailbox> retired = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile Mailbox[] active = new Mailbox[0];
    private volatile boolean running = true;
    private volatile boolean parked;
    private volatile long timerSlackNanos = -1;
    // Written by the poller thread only, once per scan: opaque stores (plain moves on x86) rather than volatile
    // writes or LongAdders, which cost a fence or a CAS on every scan of the hot loop; readers use opaque loads.
    private static final VarHandle SCANS;
    private static final VarHandle BUSY_SCANS;
    private static final VarHandle LAST_BEAT;
    private long scans;
    private long busyScans;
    private long lastBeat = System.nanoTime();
    private final LongAdder parks = new LongAdder();
    private final LongAdder yields = new LongAdder();

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            SCANS = l.findVarHandle(MailboxPoller.class, "scans", long.class);
            BUSY_SCANS = l.findVarHandle(MailboxPoller.class, "busyScans", long.class);
            LAST_BEAT = l.findVarHandle(MailboxPoller.class, "lastBeat", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    MailboxPoller(FastPath fastPath, PollerSettings settings, LongConsumer timers) {
        this.fastPath = fastPath;
        this.settings = settings;
        this.timers = timers;
        this.thread = new Thread(this::run, "freeflow-mailbox-poller");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /**
     * New back-off steps, taken by the running thread after its next request or within 1024 idle scans (at most
     * about 2 s when deeply idle); nothing restarts.
     */
    public void settings(PollerSettings s) {
        this.settings = s;
        wake();
    }

    public PollerSettings settings() {
        return settings;
    }

    synchronized void add(Mailbox mb) {
        Mailbox[] a = active;
        Mailbox[] b = java.util.Arrays.copyOf(a, a.length + 1);
        b[a.length] = mb;
        active = b;
        wake();
    }

    /** Stops serving mb; its mapping is released by the poller thread once no scan can still see it. */
    synchronized void remove(Mailbox mb) {
        List<Mailbox> l = new ArrayList<>(List.of(active));
        l.remove(mb);
        active = l.toArray(new Mailbox[0]);
        retired.add(mb);
    }

    void wake() {
        if (parked) {
            LockSupport.unpark(thread);
        }
    }

    public int mailboxes() {
        return active.length;
    }

    public long scans() {
        return (long) SCANS.getOpaque(this);
    }

    public long busyScans() {
        return (long) BUSY_SCANS.getOpaque(this);
    }

    public long parks() {
        return parks.sum();
    }

    public long yields() {
        return yields.sum();
    }

    /** CPU seconds the poller thread has used, or -1 when the JVM cannot tell. */
    public double cpuSeconds() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long ns = mx.isThreadCpuTimeSupported() ? mx.getThreadCpuTime(thread.getId()) : -1;
        return ns < 0 ? -1 : ns / 1e9;
    }

    /** Nanoseconds since the loop last went round (health: a stuck poller hangs every client). */
    public long sinceLastBeatNanos() {
        return running ? System.nanoTime() - (long) LAST_BEAT.getOpaque(this) : 0;
    }

    public boolean alive() {
        return thread.isAlive();
    }

    /** The poller thread's timer slack in nanoseconds once it runs, -1 before or when it could not be set. */
    public long timerSlackNanos() {
        return timerSlackNanos;
    }

    private void lowerTimerSlack() {
        // How late the kernel may wake this thread from a park: 50 us by default, so a 1 us park took ~60 us.
        try {
            Posix posix = Posix.libc();
            posix.prctl(Posix.PR_SET_TIMERSLACK, TIMER_SLACK_NANOS);
            timerSlackNanos = posix.prctl(Posix.PR_GET_TIMERSLACK, 0);
        } catch (RuntimeException | LinkageError e) {
            timerSlackNanos = -1;
        }
        if (timerSlackNanos < 0) {
            org.slf4j.LoggerFactory.getLogger(MailboxPoller.class).warn(
                    "freeflow poller: cannot lower the timer slack; parks wake up to 50 us late");
        }
    }

    private void run() {
        lowerTimerSlack();
        // A fault in tenant memory surfaces wherever the JVM delivers it (ShmFaults): at a safepoint poll of this
        // loop's back-edge as well, so the try holds the whole loop, not a turn of it; after a fault the loop starts
        // again (the back-off from its first step).
        while (true) {
            try {
                turns();
                return;
            } catch (InternalError e) {
                if (!ShmFaults.isFault(e)) {
                    throw e;
                }
                try {
                    fastPath.faulted(e);
                } catch (InternalError again) {
                    if (!ShmFaults.isFault(again)) {
                        throw again;
                    }
                }
            }
        }
    }

    /** The poller's loop until it is stopped. */
    private void turns() {
        long idle = 0;
        long park = 1_000;
        PollerSettings s = settings;
        long spinEnd = s.spins();
        long waitEnd = spinEnd + s.spinWaits();
        long yieldEnd = waitEnd + s.yields();
        long lastBusy = System.nanoTime();
        while (running) {
            Mailbox[] snapshot = active;
            boolean busy = false;
            for (Mailbox mb : snapshot) {
                if (mb.requested()) {
                    fastPath.serve(mb);
                    busy = true;
                }
            }
            SCANS.setOpaque(this, scans + 1);
            long now = System.nanoTime();
            LAST_BEAT.setOpaque(this, now);
            timers.accept(now);
            if (!retired.isEmpty()) {
                release(snapshot);
            }
            if (busy) {
                BUSY_SCANS.setOpaque(this, busyScans + 1);
                lastBusy = now;
                idle = 0;
                park = 1_000;
                continue;
            }
            if ((idle & 0x3ff) == 0 && settings != s) {
                // Retuned (settings(PollerSettings)): looked at every 1024th idle scan, not on the hot loop.
                s = settings;
                spinEnd = s.spins();
                waitEnd = spinEnd + s.spinWaits();
                yieldEnd = waitEnd + s.yields();
            }
            idle++;
            if (idle < spinEnd) {
                continue;
            } else if (idle < waitEnd) {
                Thread.onSpinWait();
            } else if (idle < yieldEnd) {
                yields.increment();
                Thread.yield();
            } else {
                parks.increment();
                parked = true;
                LockSupport.parkNanos(park);
                parked = false;
                // Quiet for a second: nobody is in a tight loop, so sleep longer and stop costing a core.
                long cap = now - lastBusy > DEEP_IDLE_NANOS ? s.parkMaxNanos() * DEEP_IDLE_FACTOR : s.parkMaxNanos();
                park = Math.min(park * 2, cap);
            }
        }
    }

    private void release(Mailbox[] justScanned) {
        int n = retired.size();
        for (int i = 0; i < n; i++) {
            Mailbox mb = retired.poll();
            if (mb == null) {
                break;
            }
            if (List.of(justScanned).contains(mb)) {
                retired.add(mb);
            } else {
                mb.file.unmap();
            }
        }
    }

    void drainRetired() {
        Mailbox mb;
        while ((mb = retired.poll()) != null) {
            mb.file.unmap();
        }
    }

    @Override
    public void close() {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
