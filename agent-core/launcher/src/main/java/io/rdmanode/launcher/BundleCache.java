// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Felix's bundle cache kept from one start to the next (issue 23: start-up): with the same jars in
 * {@code bundles/}, a start reloads them from the cache instead of copying 21 MB into a fresh one. The cache is
 * trusted only through a record beside Felix's files, {@value #RECORD}: the framework it was written by and, per
 * bundle location, the content digest of the build the cache holds ({@link BundleDirectory#contentDigest}). A
 * cache without a readable record, or written by another framework build, is removed before Felix sees it (the
 * start is then the same as with a fresh cache); a cached bundle with no digest in the record is uninstalled and
 * installed again from its jar ({@link BundleDirectory#adopt}). The record is replaced atomically after every
 * sync that changed something, so a crash at any point leaves either the old or the new record, and a bundle the
 * cache holds in a newer build than recorded is only updated once more. Each bundle's data area is emptied at
 * every start: ConfigAdmin keeps its configurations there, and the configuration file, not a previous run, is
 * what the agent serves.
 */
final class BundleCache {

    static final String RECORD = "rdma-agent-bundles.properties";
    private static final String FRAMEWORK_KEY = "#framework";
    /** Suffix of the key under which a location's {@link JarStamp} is recorded. */
    private static final String STAMP_SUFFIX = "#stamp";
    private static final Logger LOG = LoggerFactory.getLogger(BundleCache.class);

    private final Path directory;
    private final String framework;
    private final Map<String, String> recorded;
    private final Map<String, String> stamps;

    private BundleCache(Path directory, String framework, Map<String, String> record) {
        this.directory = directory;
        this.framework = framework;
        Map<String, String> digests = new TreeMap<>();
        Map<String, String> stamped = new TreeMap<>();
        record.forEach((key, value) -> {
            if (key.endsWith(STAMP_SUFFIX)) {
                stamped.put(key.substring(0, key.length() - STAMP_SUFFIX.length()), value);
            } else {
                digests.put(key, value);
            }
        });
        this.recorded = Map.copyOf(digests);
        this.stamps = Map.copyOf(stamped);
    }

    /**
     * The cache in {@code directory}, made safe for Felix to reload: removed when its record is missing or names
     * another framework than {@code framework}, and its bundles' data areas emptied.
     */
    static BundleCache prepare(Path directory, String framework) throws IOException {
        Map<String, String> recorded = read(directory.resolve(RECORD));
        if (recorded == null || !framework.equals(recorded.remove(FRAMEWORK_KEY))) {
            if (Files.exists(directory)) {
                LOG.info("bundle cache {} is {}; starting with a fresh one", directory,
                        recorded == null ? "not recorded" : "from another framework build");
                Main.deleteTree(directory);  // warns when it cannot; adopt trusts nothing unrecorded
            }
            return new BundleCache(directory, framework, Map.of());
        }
        try (Stream<Path> entries = Files.list(directory)) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                Path data = entry.resolve("data");
                if (entry.getFileName().toString().startsWith("bundle") && Files.isDirectory(data)) {
                    Main.deleteTree(data);
                }
            }
        }
        return new BundleCache(directory, framework, recorded);
    }

    /** The framework this process runs: the name of the Felix jar on the class path (it carries its version). */
    static String runningFramework() {
        try {
            Path jar = Path.of(org.apache.felix.framework.Felix.class.getProtectionDomain().getCodeSource()
                    .getLocation().toURI());
            return jar.getFileName().toString();
        } catch (java.net.URISyntaxException | RuntimeException e) {
            return "felix " + org.apache.felix.framework.Felix.class.getPackage().getImplementationVersion();
        }
    }

    Path directory() {
        return directory;
    }

    /** The digest of the build cached for each bundle location, as recorded at the end of the last sync. */
    Map<String, String> recorded() {
        return recorded;
    }

    /**
     * The stamp ({@link JarStamp}) each location's jar had when its recorded digest was read from it: a jar with
     * the same stamp now has the same digest, so the start does not read it again.
     */
    Map<String, String> recordedStamps() {
        return stamps;
    }

    /** Replaces the record with {@code digests} (bundle location to content digest), atomically. */
    void record(Map<String, String> digests) {
        record(digests, Map.of());
    }

    /** The same, with the stamps ({@link #recordedStamps}) of the jars those digests were read from. */
    void record(Map<String, String> digests, Map<String, String> jarStamps) {
        Properties properties = new Properties();
        properties.putAll(new TreeMap<>(digests));
        jarStamps.forEach((location, stamp) -> properties.put(location + STAMP_SUFFIX, stamp));
        properties.put(FRAMEWORK_KEY, framework);
        Path target = directory.resolve(RECORD);
        Path temp = directory.resolve(RECORD + ".tmp");
        try {
            Files.createDirectories(directory);
            try (Writer out = Files.newBufferedWriter(temp, StandardCharsets.UTF_8)) {
                properties.store(out, "bundle builds in this Felix cache (rdma-node-agent launcher); do not edit");
            }
            try {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            // The previous record may name builds the cache no longer holds (an update since): without a record
            // the next start begins with a fresh cache, slower and never wrong.
            LOG.warn("cannot record the bundle cache in {}: {}; the next start begins with a fresh cache", target,
                    e.toString());
            try {
                Files.deleteIfExists(target);
            } catch (IOException again) {
                LOG.warn("cannot remove the bundle cache record {} either: {}", target, again.toString());
            }
        }
    }

    private static Map<String, String> read(Path record) {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(record, StandardCharsets.UTF_8)) {
            properties.load(in);
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException | IllegalArgumentException e) {
            LOG.warn("bundle cache record {} is unreadable: {}", record, e.toString());
            return null;
        }
        Map<String, String> map = new TreeMap<>();
        properties.forEach((k, v) -> map.put(String.valueOf(k), String.valueOf(v)));
        return map;
    }
}
