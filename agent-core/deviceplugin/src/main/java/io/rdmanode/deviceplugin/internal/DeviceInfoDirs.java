// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where pools keep their NPWG device-info files, remembered across restarts, so that the files of a pool that is
 * gone for good still go as their devices are released. A served pool keeps its own files ({@link HeldDeviceInfo});
 * this covers the pools nobody serves any more, with the rule of CDI specs ({@link CdiSpecs}): a pool retired from
 * the configuration, or, after a start, a pool of a directory and resource remembered from an earlier instance
 * that no pool serves within the settle time. Of those, the files of devices no running container holds under the
 * resource go at every {@link #sweep}; the entry is forgotten once no file of it is left. A pool that merely stopped
 * (bundle stop, hot swap, the agent stopping) is no candidate: stopping removes nothing.
 *
 * <p>File {@code <stateDir>/deviceplugin/deviceinfo-dirs}: a header line, then {@code dir TAB resource} per line,
 * replaced whole. Thread-safe.
 */
final class DeviceInfoDirs {

    private static final Logger LOG = LoggerFactory.getLogger(DeviceInfoDirs.class);
    static final String HEADER = "# rdma-node-agent device-info directories v1: dir TAB extended resource";

    /** One pool's files: {@code <dir>/<resource>-<id>-device.json}. */
    record Dir(Path dir, String resource) implements Comparable<Dir> {
        @Override
        public int compareTo(Dir o) {
            int c = dir.compareTo(o.dir);
            return c != 0 ? c : resource.compareTo(o.resource);
        }
    }

    private final Optional<Path> indexFile;
    private final long settledAtNanos;
    private final Set<Dir> known = new TreeSet<>();           // as in the file
    private final Set<Dir> found = new TreeSet<>();           // known at start, not served since
    private final Set<Dir> retired = new TreeSet<>();
    private final Set<Dir> serving = new HashSet<>();

    DeviceInfoDirs(Optional<Path> indexFile, Duration settle) {
        this.indexFile = indexFile;
        this.settledAtNanos = System.nanoTime() + settle.toNanos();
        indexFile.ifPresent(f -> known.addAll(read(f)));
        found.addAll(known);
    }

    /** A pool of {@code resource} keeps its files in {@code dir} now. */
    synchronized void serving(Path dir, String resource) {
        Dir d = new Dir(dir.toAbsolutePath().normalize(), resource);
        serving.add(d);
        found.remove(d);
        retired.remove(d);
        if (known.add(d)) {
            write();
        }
    }

    /** The pool stopped; {@code retire}: because its configuration is gone (its files go as released). */
    synchronized void stopped(Path dir, String resource, boolean retire) {
        Dir d = new Dir(dir.toAbsolutePath().normalize(), resource);
        serving.remove(d);
        if (retire) {
            retired.add(d);
        }
    }

    /** Removes the files of released devices of retired pools and (once settled) of pools no longer configured. */
    synchronized void sweep(Map<String, String> heldBy) {
        Set<Dir> candidates = new TreeSet<>(retired);
        if (System.nanoTime() - settledAtNanos >= 0) {
            candidates.addAll(found);
        }
        candidates.removeAll(serving);
        boolean forgot = false;
        for (Dir d : candidates) {
            Set<String> held = new TreeSet<>();
            heldBy.forEach((id, resource) -> {
                if (resource.equals(d.resource())) {
                    held.add(id);
                }
            });
            DeviceInfoFiles files = new DeviceInfoFiles(d.dir(), d.resource());
            try {
                List<String> removed = files.removeAllBut(held);
                if (!removed.isEmpty()) {
                    LOG.info("device-info removed resource={} devices={}: released, and no configured pool serves"
                            + " the resource", d.resource(), removed);
                }
                if (files.written().isEmpty()) {
                    forgot |= known.remove(d);
                    found.remove(d);
                    retired.remove(d);
                }
            } catch (IOException e) {
                LOG.warn("device-info files of {} in {}: {}", d.resource(), d.dir(), e.getMessage());
            }
        }
        if (forgot) {
            write();
        }
    }

    private static Set<Dir> read(Path file) {
        Set<Dir> dirs = new TreeSet<>();
        try {
            for (String line : Files.readAllLines(file)) {
                String[] f = line.split("\t", -1);
                if (!line.startsWith("#") && f.length == 2 && !f[0].isEmpty() && !f[1].isEmpty()) {
                    dirs.add(new Dir(Path.of(f[0]), f[1]));
                }
            }
        } catch (NoSuchFileException none) {
            // first start
        } catch (IOException | RuntimeException e) {
            LOG.warn("device-info directory list {} not read ({}): files of pools removed while the agent was"
                    + " down stay", file, e.getMessage());
        }
        return dirs;
    }

    private void write() {
        if (indexFile.isEmpty()) {
            return;
        }
        StringBuilder s = new StringBuilder(HEADER).append('\n');
        known.forEach(d -> s.append(d.dir()).append('\t').append(d.resource()).append('\n'));
        try {
            AtomicFiles.write(indexFile.get(), s.toString());
        } catch (IOException e) {
            LOG.warn("cannot write device-info directory list {}: {}", indexFile.get(), e.getMessage());
        }
    }
}
