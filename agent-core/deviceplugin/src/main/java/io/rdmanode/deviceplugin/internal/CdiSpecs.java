// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.deviceplugin.CdiDevice;
import io.rdmanode.deviceplugin.CdiSpec;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This agent's CDI spec files ({@code rdmanode.io-<class>_<owner>.json}) and when each may go. A container runtime
 * resolves a pod's CDI names from these files at every container (re)start, and a successor (a restart, a
 * handover) writes the same names, so a spec lives as long as what it describes, not as long as this process:
 * <ul>
 * <li>A pool writes its spec when it starts ({@link #spec} claims the file for it). Stopping (a pool, a bundle, a
 *     hot swap, the layer, the agent, by SIGTERM or SIGKILL) removes nothing: {@link CdiSpec#close} only
 *     unclaims the file. A pod holding a device of the pool may restart a container at any moment.</li>
 * <li>A spec is removed only when what it describes is gone for good: its pool was <em>retired</em>
 *     ({@link #retire}: the pool's configuration was deleted, or changed so that it has no spec here any more),
 *     or the file was on disk when this layer started and no pool claimed it within {@code settle} (its pool is
 *     not configured); and in both cases no running container holds a device of the spec's resource (the
 *     allocation ledger, reconciled with kubelet). A held spec stays until a later {@link #sweep} (one follows
 *     every reconciliation) finds its last device released. A pool that claims the file again (an edit that
 *     keeps CDI on, a successor) takes it back, whatever was decided before.</li>
 * <li>The resource each spec serves is kept in an index file in the state directory ({@code file TAB resource}),
 *     so that a start after a crash knows which holders keep which spec. A file the index does not know (index
 *     lost, or written by an older agent) is taken as held while any device at all is held.</li>
 * <li>The layer sweeps only once kubelet has answered in this process (before that, nobody knows who holds
 *     what) and never after the state directory was handed to a successor.</li>
 * </ul>
 * Temporary files of a write that was killed ({@code .rdmanode.io-*.tmp}, which runtimes never read) go when a
 * directory is first looked at, if older than a minute (a younger one may be a live writer's). Thread-safe.
 */
final class CdiSpecs {

    private static final Logger LOG = LoggerFactory.getLogger(CdiSpecs.class);
    static final String VENDOR = "rdmanode.io";
    private static final Pattern SPEC = Pattern.compile(Pattern.quote(VENDOR) + "-.*\\.json");
    private static final Pattern TMP = Pattern.compile("\\." + Pattern.quote(VENDOR) + "-.*\\.tmp");
    private static final Pattern KIND = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?");
    static final String INDEX_HEADER = "# rdma-node-agent CDI specs v1: file TAB extended resource";
    private static final long TMP_AGE_MILLIS = 60_000;

    private final Optional<Path> indexFile;
    private final long settledAtNanos;
    private final Map<Path, String> index = new TreeMap<>();          // file -> resource, as on disk
    private final Set<Path> scanned = new HashSet<>();
    private final Map<Path, CdiSpecFile> claimed = new TreeMap<>();
    private final Map<Path, String> found = new TreeMap<>();          // on disk at start, unclaimed since
    private final Map<Path, String> retired = new TreeMap<>();        // pool retired, file kept while held
    private final List<String> removed = new CopyOnWriteArrayList<>();

    /**
     * @param dirs      directories whose specs of this agent are looked at now ({@code cdiSpecDirs})
     * @param indexFile where the resource of each spec is kept; empty: nowhere (tools, tests)
     * @param settle    how long a spec found at start waits for its pool to claim it
     */
    CdiSpecs(List<Path> dirs, Optional<Path> indexFile, Duration settle) {
        this.indexFile = indexFile;
        this.settledAtNanos = System.nanoTime() + settle.toNanos();
        indexFile.ifPresent(f -> index.putAll(readIndex(f)));
        synchronized (this) {
            dirs.forEach(this::scan);
        }
    }

    /** Claims the spec of {@code kind} and {@code owner} in {@code dir} for a pool serving {@code resource}. */
    synchronized CdiSpec spec(Path dir, String kind, String owner, String resource) {
        if (!KIND.matcher(kind).matches()) {
            throw new IllegalArgumentException("CDI kind '" + kind + "' is not <vendor>/<class>");
        }
        if (!CdiDevice.NAME.matcher(owner).matches()) {
            throw new IllegalArgumentException("CDI spec owner '" + owner + "' is not a valid name part");
        }
        scan(dir);
        CdiSpecFile spec = new CdiSpecFile(dir, kind, owner, this::unclaimed);
        Path file = key(spec.file());
        claimed.put(file, spec);
        found.remove(file);
        retired.remove(file);
        if (!resource.isEmpty() && !resource.equals(index.get(file))) {
            index.put(file, resource);
            writeIndex();
        }
        return spec;
    }

    /** {@code spec} was closed: the file stays, unclaimed (see the class comment). */
    private synchronized void unclaimed(CdiSpecFile spec) {
        claimed.remove(key(spec.file()), spec);
    }

    /** The pool serving {@code resource} was retired: its unclaimed specs go once nothing of it is held. */
    synchronized void retire(String resource) {
        index.forEach((file, r) -> {
            if (r.equals(resource) && !claimed.containsKey(file) && Files.exists(file)) {
                retired.put(file, r);
            }
        });
    }

    /**
     * Removes the retired specs, and (once settled) the ones found at start that no pool claimed, of which no
     * device is held. Called only when {@code heldBy} is kubelet's truth.
     *
     * @param heldBy device ID to the extended resource a running container holds it under
     */
    synchronized void sweep(Map<String, String> heldBy) {
        sweep(retired, heldBy, "its pool was removed from the configuration");
        if (System.nanoTime() - settledAtNanos >= 0) {
            sweep(found, heldBy, "left by an earlier instance for a pool that is not configured");
        }
    }

    private void sweep(Map<Path, String> candidates, Map<String, String> heldBy, String why) {
        boolean indexChanged = false;
        for (var it = candidates.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Path, String> e = it.next();
            if (claimed.containsKey(e.getKey()) || isHeld(e.getValue(), heldBy)) {
                continue;
            }
            it.remove();
            try {
                Files.deleteIfExists(e.getKey());
                removed.add(e.getKey() + ": " + why + ", no running container holds a device of "
                        + (e.getValue().isEmpty() ? "any resource" : e.getValue()));
                LOG.info("CDI spec removed file={} resource={}: {}; no running container holds a device of it",
                        e.getKey(), e.getValue(), why);
                indexChanged |= index.remove(e.getKey()) != null;
            } catch (IOException ex) {
                LOG.warn("cannot remove CDI spec {}: {}", e.getKey(), ex.getMessage());
            }
        }
        if (indexChanged) {
            writeIndex();
        }
    }

    /** A spec whose resource is not known is held while anything is. */
    private static boolean isHeld(String resource, Map<String, String> heldBy) {
        return resource.isEmpty() ? !heldBy.isEmpty() : heldBy.containsValue(resource);
    }

    /** Specs removed since this layer started, each with why, for {@code /status}. */
    List<String> removed() {
        return List.copyOf(removed);
    }

    /** Specs on disk that no pool of this process writes now, each with why it stays, for {@code /status}. */
    synchronized Map<String, String> unclaimed(boolean known) {
        Map<String, String> m = new LinkedHashMap<>();
        String wait = known ? "" : "; kubelet not asked yet";
        retired.forEach((f, r) -> m.put(f.toString(), "pool removed; kept while a running container holds a device"
                + " of " + (r.isEmpty() ? "any resource" : r) + wait));
        found.forEach((f, r) -> m.put(f.toString(), (System.nanoTime() - settledAtNanos < 0
                ? "waiting for its pool to start" : "its pool is not configured; kept while a running container"
                + " holds a device of " + (r.isEmpty() ? "any resource" : r)) + wait));
        index.forEach((f, r) -> {
            if (!claimed.containsKey(f) && !m.containsKey(f.toString()) && Files.exists(f)) {
                m.put(f.toString(), "its pool stopped (not removed from the configuration): kept for the pods of "
                        + r + " and the next start");
            }
        });
        return m;
    }

    /** Notes this agent's specs in {@code dir} the first time it is seen (see the class comment). */
    private void scan(Path dir) {
        Path d = key(dir);
        if (!scanned.add(d) || !Files.isDirectory(d)) {
            return;
        }
        List<Path> specs = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(d)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                if (SPEC.matcher(name).matches()) {
                    specs.add(f);
                } else if (TMP.matcher(name).matches() && oldEnough(f)) {
                    Files.deleteIfExists(f);
                }
            }
        } catch (IOException e) {
            LOG.warn("cannot list CDI spec directory {}: {}", d, e.getMessage());
            return;
        }
        for (Path f : specs) {
            if (!claimed.containsKey(f)) {
                found.put(f, index.getOrDefault(f, ""));
                LOG.info("CDI spec found file={} resource={}: kept until its pool starts, or removed if none does and"
                        + " no running container holds a device of it", f, index.getOrDefault(f, "(unknown)"));
            }
        }
    }

    private static boolean oldEnough(Path f) throws IOException {
        try {
            return System.currentTimeMillis() - Files.getLastModifiedTime(f).toMillis() > TMP_AGE_MILLIS;
        } catch (NoSuchFileException gone) {
            return false;
        }
    }

    private static Path key(Path p) {
        return p.toAbsolutePath().normalize();
    }

    static Map<Path, String> readIndex(Path file) {
        Map<Path, String> m = new TreeMap<>();
        try {
            for (String line : Files.readAllLines(file)) {
                String[] f = line.split("\t", -1);
                if (!line.startsWith("#") && f.length == 2 && !f[0].isEmpty()) {
                    m.put(key(Path.of(f[0])), f[1]);
                }
            }
        } catch (NoSuchFileException none) {
            // first start
        } catch (IOException | RuntimeException e) {
            LOG.warn("CDI spec index {} not read ({}): specs found are kept while any device is held", file,
                    e.getMessage());
        }
        return m;
    }

    private void writeIndex() {
        if (indexFile.isEmpty()) {
            return;
        }
        StringBuilder s = new StringBuilder(INDEX_HEADER).append('\n');
        index.forEach((f, r) -> s.append(f).append('\t').append(r).append('\n'));
        try {
            AtomicFiles.write(indexFile.get(), s.toString());
        } catch (IOException e) {
            LOG.warn("cannot write CDI spec index {}: {}; after a restart specs are kept while any device is held",
                    indexFile.get(), e.getMessage());
        }
    }
}
