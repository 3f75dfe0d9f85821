// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.agent;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls back when entries of one directory change: created, deleted, modified or replaced (a rename over a
 * file, a swapped symlink as Kubernetes does for a ConfigMap). One daemon thread per watcher, named
 * {@code rdma-agent-<owner>-<purpose>}, does three things:
 * <ul>
 * <li>waits for the JDK's {@link WatchService} (inotify on Linux) and ignores entries the filter rejects;</li>
 * <li>calls back once the directory has been quiet for the quiet period (a {@code cp} of a large file fires
 * many events; {@link Duration#ZERO} calls back at once);</li>
 * <li>every poll interval, compares the directory's listing (name, size, modification time, file key, links
 * followed) with the one at the last callback, and calls back when it differs: a safety net for file
 * systems without change notification and for events lost to overflow. It also notices a directory that
 * did not exist or was removed coming (back) into existence.</li>
 * </ul>
 * The callback runs on the watch thread, one call at a time; an exception from it is logged and watching
 * goes on. A change can be reported twice: when a poll lists it before its inotify event arrives (the JDK reads
 * inotify on a thread of its own), the event then calls back again. Callbacks rescan, so that costs a rescan;
 * dropping an event whose listing looks unchanged would instead miss a same-size rewrite within the file
 * system's timestamp granularity.
 *
 * @since 1.0
 */
public final class DirectoryWatcher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DirectoryWatcher.class);

    private final Path dir;
    private final Predicate<Path> filter;
    private final long quietNanos;
    private final long pollNanos;
    private final Runnable onChange;
    private final WatchService service;
    private final Thread thread;
    private volatile boolean watching;
    /** The watch on the directory and the inode it was made on: a directory replaced at its path is not it. */
    private WatchKey registered;
    private Object registeredInode;
    /** The listing {@link #start()} took, which the watch thread compares with first. */
    private Map<String, Object> initial;
    private volatile boolean closed;
    /** Changes the poll found before any event said so: each one was reported up to a poll interval late. */
    private volatile int foundByPolling;

    private DirectoryWatcher(Builder builder, Runnable onChange) throws IOException {
        this.dir = builder.dir;
        this.filter = builder.filter;
        this.quietNanos = builder.quietPeriod.toNanos();
        this.pollNanos = builder.pollInterval.toNanos();
        this.onChange = onChange;
        this.service = dir.getFileSystem().newWatchService();
        this.thread = new Thread(this::run, "rdma-agent-" + builder.owner + "-" + builder.purpose);
        thread.setDaemon(true);
    }

    /** Starts describing a watcher of {@code dir}; the directory need not exist yet. */
    public static Builder of(Path dir) {
        return new Builder(dir);
    }

    /**
     * Watches the directory and lists it on the calling thread, then starts the watch thread: every change made
     * once this returns is reported, however late that thread first runs.
     */
    public DirectoryWatcher start() {
        watching = register();
        if (!watching) {
            LOG.warn("directory {} missing; watching for it to appear", dir);
        }
        initial = listing();
        thread.start();
        return this;
    }

    public Path directory() {
        return dir;
    }

    /** The watch thread's name, {@code rdma-agent-<owner>-<purpose>}. */
    public String threadName() {
        return thread.getName();
    }

    /** False while the directory does not exist (or cannot be watched); the poll then looks for it. */
    public boolean watching() {
        return watching;
    }

    /** Stops the watch thread, waiting for it up to two seconds (a callback in progress finishes first). */
    @Override
    public void close() {
        closed = true;
        try {
            service.close();
        } catch (IOException e) {
            LOG.warn("cannot close watch on {}: {}", dir, e.getMessage());
        }
        thread.interrupt();
        if (thread.isAlive() && thread != Thread.currentThread()) {
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        try {
            Map<String, Object> seen = initial;
            long nextPoll = System.nanoTime() + pollNanos;
            long lastEvent = 0;
            boolean pending = false;
            while (!closed) {
                long now = System.nanoTime();
                long wait = pending ? Math.min(nextPoll - now, lastEvent + quietNanos - now) : nextPoll - now;
                WatchKey key = wait > 0 ? service.poll(wait, TimeUnit.NANOSECONDS) : service.poll();
                if (key != null) {
                    if (relevant(key)) {
                        pending = true;
                        lastEvent = System.nanoTime();
                    }
                    if (!key.reset()) {
                        watching = false;
                        pending = true;
                        lastEvent = System.nanoTime();
                        LOG.warn("directory {} is gone; watching for it to come back", dir);
                    }
                    continue; // take every queued event before deciding the directory is quiet
                }
                now = System.nanoTime();
                if (pending && now - lastEvent >= quietNanos) {
                    pending = false;
                    seen = listing();
                    fire();
                }
                if (now - nextPoll >= 0) {
                    nextPoll = now + pollNanos;
                    if (watching && replaced()) {
                        // Renamed away and another put at its path (mv new conf.d): inotify follows the old inode,
                        // so edits to the new one were found only by this poll, up to its interval late.
                        registered.cancel();
                        watching = register();
                        LOG.info("directory {} was replaced; watching the new one", dir);
                        seen = listing();
                        fire();
                    } else if (!watching && register()) {
                        watching = true;
                        LOG.info("watching directory {} again", dir);
                        seen = listing();
                        fire();
                    } else if (!pending) {
                        Map<String, Object> current = listing();
                        if (!current.equals(seen)) {
                            LOG.debug("change in {} found by polling (no event)", dir);
                            foundByPolling++;
                            pending = true;
                            lastEvent = now;
                        }
                    }
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException stopped) {
            LOG.debug("watch on {} stopped", dir);
        }
    }

    private boolean relevant(WatchKey key) {
        boolean relevant = false;
        for (WatchEvent<?> event : key.pollEvents()) {
            relevant |= event.kind() == StandardWatchEventKinds.OVERFLOW
                    || event.context() instanceof Path name && filter.test(name);
        }
        return relevant;
    }

    private boolean register() {
        try {
            registeredInode = inode();
            registered = dir.register(service, StandardWatchEventKinds.ENTRY_CREATE,
                    StandardWatchEventKinds.ENTRY_DELETE, StandardWatchEventKinds.ENTRY_MODIFY);
            return true;
        } catch (NoSuchFileException | NotDirectoryException e) {
            return false;
        } catch (IOException e) {
            LOG.debug("cannot watch {}: {}", dir, e.toString());
            return false;
        }
    }

    int foundByPolling() {
        return foundByPolling;
    }

    private boolean replaced() {
        Object now = inode();
        return now != null && registeredInode != null && !now.equals(registeredInode);
    }

    private Object inode() {
        try {
            return Files.readAttributes(dir, BasicFileAttributes.class).fileKey();
        } catch (IOException e) {
            return null;
        }
    }

    /** Name to (size, modified, file key) of every entry the filter accepts; symlinks followed when they can be. */
    private Map<String, Object> listing() {
        Map<String, Object> entries = new TreeMap<>();
        try (DirectoryStream<Path> paths = Files.newDirectoryStream(dir)) {
            for (Path path : paths) {
                if (filter.test(path.getFileName())) {
                    entries.put(path.getFileName().toString(), attributes(path));
                }
            }
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
        return entries;
    }

    private static Object attributes(Path path) {
        BasicFileAttributes a;
        try {
            a = Files.readAttributes(path, BasicFileAttributes.class);
        } catch (IOException followFailed) {
            try {
                a = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            } catch (IOException gone) {
                return "gone";
            }
        }
        return java.util.List.of(a.size(), a.lastModifiedTime().toMillis(), String.valueOf(a.fileKey()));
    }

    private void fire() {
        try {
            onChange.run();
        } catch (RuntimeException e) {
            LOG.error("change handler for {} failed: {}", dir, e.toString(), e);
        }
    }

    /** What to watch and how; {@link #build(Runnable)} makes the watcher. */
    public static final class Builder {
        private final Path dir;
        private String owner = "agent";
        private String purpose = "watch";
        private Predicate<Path> filter = name -> true;
        private Duration quietPeriod = Duration.ZERO;
        private Duration pollInterval = Duration.ofSeconds(2);

        private Builder(Path dir) {
            this.dir = Objects.requireNonNull(dir, "dir").toAbsolutePath();
        }

        /** The thread is named {@code rdma-agent-<owner>-<purpose>}, e.g. {@code rdma-agent-kubelet-watch}. */
        public Builder threadName(String owner, String purpose) {
            this.owner = Objects.requireNonNull(owner, "owner");
            this.purpose = Objects.requireNonNull(purpose, "purpose");
            return this;
        }

        /** Only entries whose file name (relative to the directory) passes count; all do by default. */
        public Builder filter(Predicate<Path> fileName) {
            this.filter = Objects.requireNonNull(fileName, "fileName");
            return this;
        }

        /** How long the directory must be quiet before the callback; zero (the default) calls back at once. */
        public Builder quietPeriod(Duration quiet) {
            if (quiet.isNegative()) {
                throw new IllegalArgumentException("quiet period must not be negative: " + quiet);
            }
            this.quietPeriod = quiet;
            return this;
        }

        /** The safety-net poll (and the look for a missing directory); 2 s by default, must be positive. */
        public Builder pollInterval(Duration interval) {
            if (interval.isZero() || interval.isNegative()) {
                throw new IllegalArgumentException("poll interval must be positive: " + interval);
            }
            this.pollInterval = interval;
            return this;
        }

        /**
         * Makes the watcher (not started yet).
         *
         * @throws IOException when no watch service can be created (inotify instances exhausted)
         */
        public DirectoryWatcher build(Runnable onChange) throws IOException {
            return new DirectoryWatcher(this, Objects.requireNonNull(onChange, "onChange"));
        }
    }
}
