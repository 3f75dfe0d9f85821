// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs the reload once a save has settled. Each event pushes the read back by {@code debounce} (a trailing
 * debounce), and when it is due the read waits another round if the file's size or modification time moved since
 * the last event: a save that truncates and then writes (shell {@code >}, an editor writing in place, a writer
 * pausing between the two) is read once, whole. A debounce timed from the first event and never pushed back (20 ms)
 * read the empty file and applied it: every default, every pool deleted, then the half-written one. The wait is
 * bounded by {@code maxWait} after the first event, so a file written continuously is still read.
 *
 * <p>An event arriving while a reload runs starts a new round behind it (the worker is one thread): that reload
 * may have read the file before this save.
 */
final class SettledReload {

    /** What tells one state of the file from another without reading it; a missing file has size -1. */
    private record Stamp(long size, FileTime modified) {
        static Stamp of(Path file) {
            try {
                BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
                return new Stamp(attributes.size(), attributes.lastModifiedTime());
            } catch (IOException e) {
                return new Stamp(-1, null);
            }
        }
    }

    private final ScheduledExecutorService worker;
    private final Path file;
    private final Runnable reload;
    private final long debounceMs;
    private final long maxWaitNanos;
    /** Each event or round supersedes the rounds scheduled before it; a superseded round does nothing. */
    private long generation;
    private boolean waiting;
    private long firstEvent;
    private Stamp lastStamp;

    SettledReload(ScheduledExecutorService worker, Path file, Runnable reload, long debounceMs, long maxWaitMs) {
        this.worker = worker;
        this.file = file;
        this.reload = reload;
        this.debounceMs = debounceMs;
        this.maxWaitNanos = TimeUnit.MILLISECONDS.toNanos(maxWaitMs);
    }

    /** A change in the file's directory (from the watcher thread). */
    synchronized void fileChanged() {
        long now = System.nanoTime();
        if (!waiting) {
            waiting = true;
            firstEvent = now;
        }
        lastStamp = Stamp.of(file);
        schedule(now);
    }

    private void schedule(long now) {
        long left = TimeUnit.NANOSECONDS.toMillis(firstEvent + maxWaitNanos - now);
        long round = ++generation;
        try {
            worker.schedule(() -> settle(round), Math.max(0, Math.min(debounceMs, left)), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException stopping) {
            // the bridge is deactivating
        }
    }

    private void settle(long round) {
        Stamp stamp = Stamp.of(file);
        synchronized (this) {
            if (round != generation) {
                return;
            }
            long now = System.nanoTime();
            if (!stamp.equals(lastStamp) && now - firstEvent < maxWaitNanos) {
                // Written since the last event, whose own event may still be on its way: not settled yet.
                lastStamp = stamp;
                schedule(now);
                return;
            }
            waiting = false;
        }
        reload.run();
    }
}
