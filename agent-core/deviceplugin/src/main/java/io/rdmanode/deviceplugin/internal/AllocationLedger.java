// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.zip.CRC32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which device of an exclusive pool is held under which extended resource, and by which pod once kubelet said so:
 * the layer's memory of what kubelet handed out, kept across agent restarts and hot swaps. Kubelet keeps its
 * allocation book per resource name, so a device held under one resource must not be advertised under another
 * until its holder is gone; Allocate never says which pod asks, so the truth about holders is kubelet's
 * PodResources answer, with which {@link #reconcile} replaces the ledger (keeping what was allocated in the last
 * {@link #GRACE} that kubelet does not list yet).
 *
 * <p>File: a header line, one line per entry {@code resource TAB deviceId TAB sinceEpochMillis TAB holder}, a
 * trailer {@code end <entries> crc32 <hex of the lines before>}. Written to a temporary name, forced to disk,
 * renamed over the old file, the directory forced; the temporary file is removed on every failure. A file that
 * does not end in a matching trailer (truncated, edited, corrupt) is not trusted: the ledger starts empty and the
 * next reconciliation rebuilds it. Thread-safe.
 *
 * <p>Group commit: a change is recorded in memory at once and is written before the call that made it returns
 * ({@link #allocated}, {@link #forget}, {@link #reconcile}), but the write happens outside the ledger's monitor and
 * covers every change made until it starts. Allocates that arrive while a write (two fsyncs) is in flight wait
 * for the next write, which carries all of them: 50 concurrent Allocates cost a few writes, not 50, and each one
 * still answers only once its record is on disk (kubelet must never hold a device the ledger forgot after a
 * crash). Locks are taken in one order: the write lock ({@code commit}), the file lock, the monitor.
 *
 * <p>One writer, passed at a handover (issue 27): a successor started with the same state directory reads the
 * file at start, while its predecessor may still record Allocates kubelet sent it before switching to the
 * successor's sockets. So a ledger follows the file: before it writes, and when it reconciles, it merges what
 * another instance wrote since this one last read or wrote it (entries it lacks are added; a merged entry kubelet
 * does not list goes at the next reconciliation, as any other). The read, merge and write happen under a lock
 * on {@code <file>.lock}, so two instances in the seconds of a handover never lose each other's records. Once
 * {@link #stopWriting} (the predecessor, after the handover) the file is never written again by this instance
 * (it waits for a write in flight).
 */
final class AllocationLedger {

    private static final Logger LOG = LoggerFactory.getLogger(AllocationLedger.class);
    static final String HEADER = "# rdma-node-agent allocation ledger v1";
    /** Allocated this recently and not listed by kubelet yet: kept (kubelet records after Allocate returns). */
    static final Duration GRACE = Duration.ofSeconds(30);

    /** One held device. {@code holder} is {@code namespace/pod/container} (or the pod UID), empty until known. */
    record Entry(String resource, String deviceId, long sinceMillis, String holder) { }

    /** What kubelet says a running container holds. */
    record Holding(String resource, String deviceId, String holder) { }

    /** What a reconciliation changed; {@code known} when it ended the "not trusted, not asked yet" state. */
    record Change(List<Entry> released, List<Entry> added, boolean known) {
        boolean any() {
            return !released.isEmpty() || !added.isEmpty() || known;
        }
    }

    /**
     * The resource every device is held under while a ledger file that was not trusted has not been reconciled
     * yet: nothing is known to be free, so an exclusive pool offers none (kubelet's PodResources may bind after
     * the pools first serve; offering a VF a pod holds under another resource in that window hands it out twice).
     */
    static final String UNKNOWN = "(unknown: allocation ledger not trusted, kubelet not asked yet)";

    private final Optional<Path> file;
    private final Clock clock;
    private final Map<String, Entry> entries = new TreeMap<>();        // resource + '\0' + deviceId
    private volatile Map<String, String> heldBy = Map.of();
    private volatile String problem = "";
    private final String loadProblem;
    private boolean unknown;                                          // guarded by this
    private Optional<String> fileSeen = Optional.empty();             // identity last read or written; commit
    private volatile boolean writer = true;                           // changed under this; read lock-free
    /** Held while the file is merged or written: one write at a time, taken before the file lock and this. */
    private final java.util.concurrent.locks.ReentrantLock commit = new java.util.concurrent.locks.ReentrantLock();
    private volatile long changes;                                    // in-memory changes to write; changed
                                                                      // under this, read lock-free (held)
    private volatile long written;                                    // changes on disk (or not to be written)

    private AllocationLedger(Optional<Path> file, Clock clock) {
        this.file = file;
        this.clock = clock;
        String loaded = "";
        if (file.isPresent()) {
            try {
                fileSeen = identity(file.get());
                read(file.get()).forEach(e -> entries.put(key(e.resource(), e.deviceId()), e));
            } catch (IOException | IllegalArgumentException e) {
                loaded = "allocation ledger " + file.get() + " not trusted (" + e.getMessage()
                        + "): rebuilt from kubelet's PodResources";
                LOG.error(loaded);
            }
        }
        this.loadProblem = loaded;
        this.unknown = !loaded.isEmpty();
        publish();
    }

    /** The ledger kept in {@code file} (created when first written). */
    static AllocationLedger at(Path file, Clock clock) {
        return new AllocationLedger(Optional.of(file), clock);
    }

    /** A ledger kept in memory only: a layer given no state directory (tools that serve nothing). */
    static AllocationLedger inMemory() {
        return new AllocationLedger(Optional.empty(), Clock.systemUTC());
    }

    /** Device ID to the extended resource it is held under. Lock-free. */
    Map<String, String> heldBy() {
        return heldBy;
    }

    synchronized List<Entry> entries() {
        return List.copyOf(entries.values());
    }

    /** Why the file could not be read at start or written last; empty when fine. */
    String problem() {
        return problem.isEmpty() ? loadProblem : problem;
    }

    /**
     * Records that Allocate handed {@code deviceIds} out under {@code resource}.
     *
     * @return the IDs newly recorded (to {@link #forget} if the allocation then fails)
     */
    List<String> allocated(String resource, Collection<String> deviceIds) {
        Recorded r = record(resource, deviceIds);
        awaitWritten(r);
        return r.ids();
    }

    /**
     * Whether every one of {@code deviceIds} is recorded under {@code resource} and on disk (or the ledger is in
     * memory only), without the ledger's monitor: what {@link #allocated} of these IDs would find, once its wait
     * returned. kubelet sends an Allocate again for devices it holds (a container restarting, 50 containers of one
     * pod spec); those need no turn on the monitor, which every new allocation takes. False when the file is
     * another instance's ({@link #stopWriting}): that Allocate is logged on the way that records.
     */
    boolean held(String resource, Collection<String> deviceIds) {
        if (!writer) {
            return false;
        }
        Map<String, String> h = heldBy;                   // first: a published entry's change is counted already
        if (h == EVERY_DEVICE_UNKNOWN) {
            return false;                                 // not trusted, not reconciled: nothing is known held
        }
        for (String id : deviceIds) {
            if (!resource.equals(h.get(id))) {
                return false;
            }
        }
        return file.isEmpty() || written >= changes;
    }

    /** What {@link #record} changed in memory, and the change to wait for ({@link #awaitWritten}). */
    record Recorded(List<String> ids, long change) { }

    /**
     * {@link #allocated} in memory only: visible to {@link #heldBy} at once, on disk once {@link #awaitWritten}
     * returns. For a caller that records under its own lock and waits for the write outside it.
     */
    synchronized Recorded record(String resource, Collection<String> deviceIds) {
        long now = clock.millis();
        List<String> added = new ArrayList<>();
        for (String id : deviceIds) {
            if (entries.putIfAbsent(key(resource, id), new Entry(resource, id, now, "")) == null) {
                added.add(id);
            }
        }
        // Nothing new: still wait for a write in flight, which may carry these IDs for a concurrent Allocate.
        return new Recorded(added, added.isEmpty() ? (file.isPresent() && writer ? changes : 0) : changed());
    }

    /** Drops entries {@link #allocated} just made for an Allocate that then failed. */
    void forget(String resource, Collection<String> deviceIds) {
        long change = 0;
        synchronized (this) {
            boolean any = false;
            for (String id : deviceIds) {
                any |= entries.remove(key(resource, id)) != null;
            }
            if (any) {
                change = changed();
            }
        }
        awaitWritten(new Recorded(List.of(), change));
    }

    /**
     * Replaces the ledger with kubelet's answer, every device it lists under any resource (another plugin's
     * resource may hold a VF too: it is not ours to offer then). An entry kubelet does not list is released,
     * unless kubelet never listed it and it was allocated within {@link #GRACE} (kubelet records an allocation
     * after Allocate returns; a restarted kubelet lists it once it has read its checkpoint).
     */
    Change reconcile(Collection<Holding> running) {
        mergeWrittenElsewhere();
        Reconciled r;
        long toWrite = 0;
        synchronized (this) {
            r = reconcileInMemory(running);
            if (r.differs()) {
                toWrite = changed();
            } else if (r.known()) {
                publish();
            }
        }
        awaitWritten(new Recorded(List.of(), toWrite));
        return new Change(r.released(), r.added(), r.known());
    }

    private record Reconciled(List<Entry> released, List<Entry> added, boolean known, boolean differs) { }

    private Reconciled reconcileInMemory(Collection<Holding> running) {
        long now = clock.millis();
        Map<String, Entry> next = new TreeMap<>();
        List<Entry> added = new ArrayList<>();
        for (Holding h : running) {
            String k = key(h.resource(), h.deviceId());
            Entry before = entries.get(k);
            Entry e = new Entry(h.resource(), h.deviceId(), before == null ? now : before.sinceMillis(),
                    h.holder().isEmpty() && before != null ? before.holder() : h.holder());
            next.put(k, e);
            if (before == null) {
                added.add(e);
            }
        }
        List<Entry> released = new ArrayList<>();
        for (Map.Entry<String, Entry> e : entries.entrySet()) {
            if (next.containsKey(e.getKey())) {
                continue;
            }
            Entry unlisted = e.getValue();
            if (unlisted.holder().isEmpty() && now - unlisted.sinceMillis() < GRACE.toMillis()) {
                next.put(e.getKey(), unlisted);
            } else {
                released.add(unlisted);
            }
        }
        boolean differs = !next.equals(entries);
        boolean known = unknown;
        unknown = false;
        entries.clear();
        entries.putAll(next);
        return new Reconciled(List.copyOf(released), List.copyOf(added), known, differs);
    }

    /**
     * This instance handed the state directory to a successor: from now on the ledger changes in memory only
     * (what this instance still answers stays consistent) and the file is the successor's.
     */
    void stopWriting() {
        commit.lock();                                 // a write in flight ends first
        try {
            synchronized (this) {
                // What was recorded before the handover goes to the file, for the successor to merge. Under the
                // monitor (against the lock order: no other thread of this ledger can hold the file lock while
                // this one holds commit), so that nothing recorded before this point is left in memory only.
                if (writer && written < changes) {
                    try {
                        write();
                    } catch (UncheckedIOException e) {
                        LOG.warn("{}: the successor learns the holdings from kubelet", e.getMessage());
                    }
                }
                if (writer) {
                    writer = false;
                    LOG.info("allocation ledger {} handed to the successor: this instance writes it no more",
                            file.map(Path::toString).orElse("(in memory)"));
                }
            }
        } finally {
            commit.unlock();
        }
    }

    synchronized boolean writing() {
        return writer;
    }

    /**
     * Adds the entries another instance (a predecessor before its handover) wrote to the file since this ledger
     * last read or wrote it. A file that does not read whole is left to the next write and reconciliation.
     */
    boolean mergeWrittenElsewhere() {
        commit.lock();
        try {
            if (file.isEmpty() || !writing() || identity(file.get()).equals(fileSeen)) {
                return false;                        // one stat when nothing changed: no lock file touched
            }
            try (FileLock ignored = lock(file.get())) {
                synchronized (this) {
                    return merge(file.get()) > 0;
                }
            } catch (IOException | IllegalArgumentException e) {
                LOG.warn("allocation ledger {} changed by another instance and not merged: {}", file.get(),
                        e.getMessage());
                return false;
            }
        } finally {
            commit.unlock();
        }
    }

    /** Under {@code commit}, the file lock and this: merges the file if it changed since this ledger saw it. */
    private int merge(Path f) throws IOException {
        Optional<String> now = identity(f);
        if (now.isEmpty() || now.equals(fileSeen)) {
            return 0;
        }
        int added = 0;
        for (Entry e : read(f)) {
            if (entries.putIfAbsent(key(e.resource(), e.deviceId()), e) == null) {
                added++;
            }
        }
        fileSeen = now;
        if (added > 0) {
            LOG.info("allocation ledger {}: merged {} entries another instance recorded", f, added);
            publish();
        }
        return added;
    }

    /**
     * Under this: publishes a change and returns its number to wait for, 0 when nothing is to be written. Counted
     * before it is published: {@link #held} reads {@link #heldBy} first, then {@link #changes}.
     */
    private long changed() {
        long change = file.isPresent() && writer ? ++changes : 0;
        publish();
        return change;
    }

    /**
     * Returns once {@code r}'s change is on disk: a write in flight may carry it; if not, the next one, made by
     * the first waiter to get the write lock, carries every change recorded until then.
     *
     * @throws UncheckedIOException when the write that should carry it failed (the change stays in memory; the
     *                              next write carries it again)
     */
    void awaitWritten(Recorded r) {
        if (r.change() == 0 || written >= r.change()) {
            return;
        }
        commit.lock();
        try {
            if (written < r.change()) {
                write();
            }
        } finally {
            commit.unlock();
        }
    }

    /** Under {@code commit}: merges what another instance wrote, then writes every change recorded until now. */
    private void write() {
        Path f = file.orElseThrow();
        try (FileLock ignored = lock(f)) {
            List<Entry> content;
            long upTo;
            synchronized (this) {
                upTo = changes;
                if (!writer) {
                    written = upTo;                  // handed over: the file is the successor's
                    return;
                }
                try {
                    merge(f);
                } catch (IllegalArgumentException notWhole) {
                    LOG.warn("allocation ledger {} not merged before writing: {}", f, notWhole.getMessage());
                }
                content = List.copyOf(entries.values());
            }
            write(f, content);                       // outside the monitor: Allocates keep recording meanwhile
            fileSeen = identity(f);
            written = upTo;
            problem = "";
        } catch (IOException e) {
            problem = "cannot write allocation ledger " + f + ": " + e.getMessage();
            throw new UncheckedIOException(problem, e);
        }
    }

    private void publish() {
        if (unknown) {
            heldBy = EVERY_DEVICE_UNKNOWN;
            return;
        }
        Map<String, String> m = new LinkedHashMap<>();
        entries.values().forEach(e -> m.putIfAbsent(e.deviceId(), e.resource()));
        heldBy = Collections.unmodifiableMap(m);
    }

    /** Answers {@link #UNKNOWN} for every device ID; lists none (no entry is known). */
    private static final Map<String, String> EVERY_DEVICE_UNKNOWN = new java.util.AbstractMap<>() {
        @Override
        public java.util.Set<Map.Entry<String, String>> entrySet() {
            return java.util.Set.of();
        }

        @Override
        public String get(Object deviceId) {
            return UNKNOWN;
        }

        @Override
        public boolean containsKey(Object deviceId) {
            return true;
        }

        @Override
        public String getOrDefault(Object deviceId, String fallback) {
            return UNKNOWN;
        }
    };

    /** Which file {@code f} is now (inode, size, modification time); empty when absent. */
    private static Optional<String> identity(Path f) {
        try {
            Map<String, Object> a = Files.readAttributes(f, "unix:ino,size,lastModifiedTime");
            return Optional.of(a.get("ino") + ":" + a.get("size") + "@" + a.get("lastModifiedTime"));
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.empty();
        }
    }

    /**
     * Excludes every other writer of {@code f}: a POSIX lock on {@code <f>.lock} against other processes, and
     * before it a lock per file against other ledgers of this JVM (POSIX locks belong to the process, and the
     * JDK refuses a second one on the same file). Static on purpose: the exclusion is per file, not per ledger.
     */
    private static FileLock lock(Path f) throws IOException {
        Path lockFile = f.toAbsolutePath().resolveSibling(f.getFileName() + ".lock");
        java.util.concurrent.locks.ReentrantLock inJvm = JVM_LOCKS.computeIfAbsent(lockFile.toString(),
                k -> new java.util.concurrent.locks.ReentrantLock());
        inJvm.lock();
        try {
            Files.createDirectories(lockFile.getParent());
            FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            try {
                java.nio.channels.FileLock held = ch.lock();
                return () -> {
                    try {
                        held.release();
                        ch.close();
                    } finally {
                        inJvm.unlock();
                    }
                };
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            inJvm.unlock();
            throw e;
        }
    }

    private static final java.util.concurrent.ConcurrentMap<String, java.util.concurrent.locks.ReentrantLock>
            JVM_LOCKS = new java.util.concurrent.ConcurrentHashMap<>();

    /** A held lock; closing releases it. */
    private interface FileLock extends AutoCloseable {
        @Override
        void close() throws IOException;
    }

    private static String key(String resource, String deviceId) {
        return resource + '\0' + deviceId;
    }

    static void write(Path file, Collection<Entry> content) throws IOException {
        StringBuilder body = new StringBuilder(HEADER).append('\n');
        for (Entry e : content) {
            body.append(clean(e.resource())).append('\t').append(clean(e.deviceId())).append('\t')
                    .append(e.sinceMillis()).append('\t').append(clean(e.holder())).append('\n');
        }
        byte[] lines = body.toString().getBytes(StandardCharsets.UTF_8);
        CRC32 crc = new CRC32();
        crc.update(lines);
        byte[] trailer = ("end " + content.size() + " crc32 " + Long.toHexString(crc.getValue()) + "\n")
                .getBytes(StandardCharsets.UTF_8);
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve("." + file.getFileName() + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer all = ByteBuffer.allocate(lines.length + trailer.length).put(lines).put(trailer).flip();
                while (all.hasRemaining()) {
                    ch.write(all);
                }
                ch.force(true);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);                 // any failure (ENOSPC included) leaves no temporary file
        }
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);                             // the rename itself survives a power loss
        } catch (IOException notSupported) {
            LOG.debug("directory {} not forced: {}", dir, notSupported.getMessage());
        }
    }

    /** @throws IllegalArgumentException when the file is not a whole ledger */
    static List<Entry> read(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return List.of();
        }
        int end = text.lastIndexOf("\nend ");
        if (!text.startsWith(HEADER + "\n") || end < 0 || !text.endsWith("\n")) {
            throw new IllegalArgumentException("no header or no trailer: truncated or not a ledger");
        }
        String lines = text.substring(0, end + 1);
        String[] trailer = text.substring(end + 1).strip().split(" ");
        CRC32 crc = new CRC32();
        crc.update(lines.getBytes(StandardCharsets.UTF_8));
        if (trailer.length != 4 || !trailer[2].equals("crc32")
                || !trailer[3].equals(Long.toHexString(crc.getValue()))) {
            throw new IllegalArgumentException("checksum does not match: corrupt");
        }
        List<Entry> out = new ArrayList<>();
        for (String line : lines.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t", -1);
            if (f.length != 4) {
                throw new IllegalArgumentException("malformed line '" + line + "'");
            }
            out.add(new Entry(f[0], f[1], Long.parseLong(f[2]), f[3]));
        }
        if (out.size() != Integer.parseInt(trailer[1])) {
            throw new IllegalArgumentException("trailer counts " + trailer[1] + " entries, file has " + out.size());
        }
        return out;
    }

    private static String clean(String s) {
        return s.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ');
    }
}
