// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarInputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.wiring.FrameworkWiring;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the framework's bundles equal to the jars in one directory: a new jar is installed and started, a
 * changed jar is updated, a removed jar is uninstalled, and the framework is refreshed so dependents re-wire.
 * A jar is identified by its content, the SHA-256 digest of its zip central directory (every entry's name, size
 * and CRC-32 of its bytes; see {@link #contentDigest}): a {@code touch}, a rewrite with the same bytes or a
 * {@code cp} of the same build over it changes nothing, while a changed build restarts its bundle
 * exactly once (stopped, updated, one refresh, started again; {@code Bundle.update} followed by a refresh would
 * start it twice). A jar is read once, and only when its size and modification time are the same before and
 * after the read (a jar still being written waits for the next sync); the bytes read are the ones digested and
 * installed. A jar that is not a bundle (no readable manifest or no {@code Bundle-SymbolicName}) is refused with
 * one log line and the build already installed from it keeps running. Jars are read into the framework's cache
 * (never {@code reference:} URLs), so a jar may be replaced or deleted on disk at any time; a cache kept from the
 * last start ({@link BundleCache}) is taken over with {@link #adopt}, and of a jar it holds the same build of,
 * only the central directory is read. Bundles named in {@code disabled} (by their {@code Agent-Bundle} header)
 * are installed but not started; the config bundle owns their state afterwards.
 */
final class BundleDirectory {

    static final String AGENT_BUNDLE_HEADER = io.rdmanode.agent.AgentProperties.AGENT_BUNDLE_HEADER;
    private static final Logger LOG = LoggerFactory.getLogger(BundleDirectory.class);

    private final Path dir;
    private final BundleContext system;
    private final Set<String> disabled;
    /** Jars outside {@code dir} installed too ({@link OptionalBundles}), as long as they exist. */
    private final List<Path> extras;
    /** The digest of the build installed from each jar. */
    private final Map<Path, String> installed = new HashMap<>();
    /** Runs between the bundles that serve kubelet and the {@link #AFTER_KUBELET} ones of one start. */
    private volatile Runnable beforeTheRest = () -> { };
    /** The digest of a build that was refused or failed, so the same bytes are not tried (and logged) again. */
    private final Map<Path, String> refused = new HashMap<>();
    /** Bundles reloaded from a kept cache ({@link #adopt}), started by the next sync in the launcher's order. */
    private final Map<Path, Bundle> adopted = new HashMap<>();
    /** Where the builds installed are recorded for the next start, or null (a cache that is not kept). */
    private BundleCache cache;
    /** Whether the cache's record has been written since {@link #adopt}. */
    private boolean recorded;
    /** The digest last read from each jar, under the file's stamp then ({@link JarStamp}). */
    private final Map<Path, JarStamp.Known> known = new HashMap<>();

    /** One settled read of a jar: its bytes and their SHA-256 digest. */
    private record Content(byte[] bytes, String digest) {
        InputStream stream() {
            return new ByteArrayInputStream(bytes);
        }
    }

    /** What one {@link #sync()} did, for logs and tests. */
    record Changes(List<String> installed, List<String> updated, List<String> uninstalled, List<String> failed) {
        boolean any() {
            return !installed.isEmpty() || !updated.isEmpty() || !uninstalled.isEmpty() || !failed.isEmpty();
        }
    }

    BundleDirectory(Path dir, BundleContext system, Set<String> disabled) {
        this(dir, List.of(), system, disabled);
    }

    BundleDirectory(Path dir, List<Path> extras, BundleContext system, Set<String> disabled) {
        this.dir = dir;
        this.extras = List.copyOf(extras);
        this.system = system;
        this.disabled = disabled;
    }

    Path dir() {
        return dir;
    }

    /**
     * What runs once a sync has started the bundles that serve kubelet and before it starts the first
     * {@link #AFTER_KUBELET} one (only in a sync that starts both kinds): the launcher lets the pools' first
     * registration settle there ({@link io.rdmanode.agent.StartupBarrier}).
     */
    void beforeTheRest(Runnable action) {
        this.beforeTheRest = action;
    }

    /**
     * Takes over the bundles Felix reloaded from a kept {@code cache} (after {@code init}, before the framework
     * starts): a bundle whose build the cache's record names, and whose jar is still there, counts as installed
     * with that digest, so the next sync reads only its jar's central directory and starts it in the launcher's
     * order ({@link #startOrder}); any other cached bundle is uninstalled, and its jar, if any, installed afresh.
     * Every adopted bundle's persistent autostart setting is cleared, so that Felix's own start of the framework
     * starts none of them: the order, and which bundles are disabled, are this start's to decide.
     */
    synchronized void adopt(BundleCache cache) {
        this.cache = cache;
        for (Bundle bundle : system.getBundles()) {
            if (bundle.getBundleId() == 0) {
                continue;
            }
            String digest = cache.recorded().get(bundle.getLocation());
            Path jar = jarAt(bundle.getLocation());
            String stamp = cache.recordedStamps().get(bundle.getLocation());
            if (jar != null && digest != null && stamp != null) {
                known.put(jar, new JarStamp.Known(stamp, digest));
            }
            try {
                if (digest == null || jar == null || !Files.isRegularFile(jar)) {
                    LOG.debug("cached bundle {} location={} not recorded or its jar is gone: uninstalled",
                            describe(bundle), bundle.getLocation());
                    bundle.uninstall();
                    continue;
                }
                if (!servedHere(jar)) {
                    // Cached from another distribution directory on the same state directory (a copy, an
                    // install moved or upgraded beside the old one): kept, it would hold its symbolic name and
                    // version, and this directory's build of the same bundle could not install.
                    LOG.info("cached bundle {} came from {}, not this distribution's {}: uninstalled",
                            describe(bundle), jar.getParent(), dir);
                    bundle.uninstall();
                    continue;
                }
                if (bundle.getHeaders().get(Constants.FRAGMENT_HOST) == null) {
                    bundle.stop(); // a fragment has no autostart setting (and refuses stop)
                }
                installed.put(jar, digest);
                adopted.put(jar, bundle);
            } catch (BundleException | RuntimeException e) {
                LOG.warn("cannot take over cached bundle {}: {}", describe(bundle), e.toString());
            }
        }
    }

    /** A jar of this directory, or one of the optional jars switched on. */
    private boolean servedHere(Path jar) {
        Path absolute = jar.toAbsolutePath().normalize();
        return absolute.getParent().equals(dir.toAbsolutePath().normalize())
                || extras.stream().anyMatch(extra -> extra.toAbsolutePath().normalize().equals(absolute));
    }

    private static Path jarAt(String location) {
        try {
            return Path.of(java.net.URI.create(location));
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            return null;
        }
    }

    /** Brings the framework in line with the directory. Called from one thread at a time. */
    synchronized Changes sync() throws IOException {
        Set<Path> present = scan();
        Changes changes = new Changes(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        List<Bundle> toRefresh = new ArrayList<>();
        List<Bundle> toStart = new ArrayList<>();
        for (Path jar : present) {
            Bundle pending = adopted.remove(jar);
            syncJar(jar, changes, toRefresh, toStart);
            if (pending != null && pending.getState() != Bundle.UNINSTALLED && !toStart.contains(pending)
                    && startable(pending)) {
                toStart.add(pending);
            }
        }
        adopted.clear();
        refused.keySet().retainAll(present);
        for (Path gone : List.copyOf(installed.keySet())) {
            if (!present.contains(gone)) {
                installed.remove(gone);
                uninstall(gone, changes, toRefresh);
            }
        }
        if (!toRefresh.isEmpty()) {
            refresh(toRefresh);
        }
        start(toStart, changes);
        if (cache != null && (changes.any() || !recorded)) {
            recordInCache();
            recorded = true;
        }
        return changes;
    }

    private void recordInCache() {
        Map<String, String> digests = new HashMap<>();
        Map<String, String> stamps = new HashMap<>();
        installed.forEach((jar, digest) -> {
            digests.put(location(jar), digest);
            JarStamp.Known read = known.get(jar);
            if (read != null && read.digest().equals(digest)) {
                stamps.put(location(jar), read.stamp());
            }
        });
        cache.record(digests, stamps);
    }

    /**
     * {@link #digestOnDisk}, unless the jar's stamp is the one it had when its digest was last read: a start
     * digested every jar's central directory (30 jars, ~80 ms of a C1-only JVM's CPU on the path to registering
     * the pools with kubelet), and so did every sync the directory watcher started.
     */
    private String digestOf(Path jar) {
        String stamp = JarStamp.of(jar);
        JarStamp.Known read = known.get(jar);
        if (stamp != null && read != null && read.stamp().equals(stamp)) {
            return read.digest();
        }
        String digest = digestOnDisk(jar);
        if (digest != null && stamp != null && JarStamp.settled(stamp) && stamp.equals(JarStamp.of(jar))) {
            known.put(jar, new JarStamp.Known(stamp, digest));
        } else {
            known.remove(jar);
        }
        return digest;
    }

    /** Installs, updates or refuses one jar, when its content differs from what was installed or refused. */
    private void syncJar(Path jar, Changes changes, List<Bundle> toRefresh, List<Bundle> toStart) {
        String onDisk = digestOf(jar);
        if (onDisk == null || onDisk.equals(installed.get(jar)) || onDisk.equals(refused.get(jar))) {
            return;
        }
        Content content = read(jar);
        if (content == null || content.digest().equals(installed.get(jar))
                || content.digest().equals(refused.get(jar))) {
            return;
        }
        // A new jar has nothing running to protect (a broken one fails to install, logged): the full read
        // of every entry, ~0.5 s for the shipped 27 MB on the agent's C1-only JVM, is spent only on updates.
        String problem = notABundle(content, installed.containsKey(jar));
        if (problem != null) {
            refuse(jar, content, problem, changes);
        } else if (installed.containsKey(jar)) {
            update(jar, content, changes, toRefresh, toStart);
        } else {
            install(jar, content, changes, toStart);
        }
    }

    private Set<Path> scan() throws IOException {
        Set<Path> jars = new TreeSet<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                // Editors and copy tools write temporaries first; only finished *.jar files count.
                if (name.endsWith(".jar") && !name.startsWith(".") && Files.isRegularFile(file)) {
                    jars.add(file);
                }
            }
        }
        for (Path extra : extras) {
            if (Files.isRegularFile(extra) && !jars.contains(dir.resolve(extra.getFileName()))) {
                jars.add(extra);
            }
        }
        return jars;
    }

    /**
     * The jar's content digest ({@link #contentDigest}) from its central directory and end record alone, read
     * from the file's tail (a few kilobytes of each jar, where {@link #read} reads all of it), or null while it is
     * being written (or has just vanished). An unchanged jar is not read further.
     */
    static String digestOnDisk(Path jar) {
        try (java.io.RandomAccessFile file = new java.io.RandomAccessFile(jar.toFile(), "r")) {
            BasicFileAttributes before = Files.readAttributes(jar, BasicFileAttributes.class);
            long size = file.length();
            int tailLength = (int) Math.min(size, 0xFFFF + 22);
            byte[] tail = new byte[tailLength];
            file.seek(size - tailLength);
            file.readFully(tail);
            String digest = null;
            int end = endRecord(tail);
            if (end >= 0) {
                long directorySize = Integer.toUnsignedLong(le32(tail, end + 12));
                long directoryAt = Integer.toUnsignedLong(le32(tail, end + 16));
                if (directoryAt + directorySize == size - tailLength + end) {
                    MessageDigest sha = sha256();
                    byte[] chunk = new byte[(int) Math.min(64 * 1024, size - directoryAt)];
                    file.seek(directoryAt);
                    for (long left = size - directoryAt; left > 0; ) {
                        int n = file.read(chunk, 0, (int) Math.min(chunk.length, left));
                        if (n < 0) {
                            return null;
                        }
                        sha.update(chunk, 0, n);
                        left -= n;
                    }
                    digest = HexFormat.of().formatHex(sha.digest());
                }
            }
            if (digest == null) {
                digest = contentDigest(readInChunks(jar));
            }
            BasicFileAttributes after = Files.readAttributes(jar, BasicFileAttributes.class);
            return before.size() == after.size() && after.size() == size
                    && before.lastModifiedTime().equals(after.lastModifiedTime()) ? digest : null;
        } catch (IOException vanished) {
            return null;
        }
    }

    /** The jar's bytes and digest, or null while it is being written (or has just vanished). */
    private static Content read(Path jar) {
        try {
            BasicFileAttributes before = Files.readAttributes(jar, BasicFileAttributes.class);
            byte[] bytes = readInChunks(jar);
            BasicFileAttributes after = Files.readAttributes(jar, BasicFileAttributes.class);
            if (bytes.length != after.size() || before.size() != after.size()
                    || !before.lastModifiedTime().equals(after.lastModifiedTime())) {
                LOG.debug("bundle jar still being written file={}; read again at the next change", jar);
                return null;
            }
            return new Content(bytes, contentDigest(bytes));
        } catch (IOException vanished) {
            LOG.debug("bundle jar vanished while reading file={}", jar);
            return null;
        }
    }

    /**
     * The file's bytes, read through a stream in small chunks: {@code Files.readAllBytes} reads a file in one call
     * through a temporary direct buffer as large as the file, which counts against the agent's small
     * {@code MaxDirectMemorySize} (32 MiB under the demo's limits) and ends the JVM on a large bundle (an 18 MB DRA
     * jar did).
     */
    static byte[] readInChunks(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = new byte[(int) Math.min(Files.size(file), Integer.MAX_VALUE - 8)];
            int off = 0;
            for (int n; off < bytes.length && (n = in.read(bytes, off, Math.min(64 * 1024, bytes.length - off))) > 0; ) {
                off += n;
            }
            // Shorter than its size a moment ago: the caller sees the lengths differ and reads it again later.
            return off == bytes.length ? bytes : java.util.Arrays.copyOf(bytes, off);
        }
    }

    /**
     * SHA-256 of the jar's central directory and end record, which list every entry's name, sizes and the CRC-32
     * of its bytes: a changed build changes it, while the digest costs a few kilobytes instead of the whole jar
     * (all 39 shipped jars, 28 MB: about 400 ms of SHA-256 at the agent's C1-only start, the start-up budget
     * being about a second). Bytes without a readable end record (a jar cut short, ZIP64) are digested whole.
     */
    static String contentDigest(byte[] zip) {
        int end = endRecord(zip);
        if (end >= 0) {
            long size = Integer.toUnsignedLong(le32(zip, end + 12));
            long offset = Integer.toUnsignedLong(le32(zip, end + 16));
            if (offset + size == end) {
                MessageDigest sha = sha256();
                sha.update(zip, (int) offset, zip.length - (int) offset);
                return HexFormat.of().formatHex(sha.digest());
            }
        }
        return HexFormat.of().formatHex(sha256().digest(zip));
    }

    private static int le32(byte[] b, int at) {
        return (b[at] & 0xFF) | (b[at + 1] & 0xFF) << 8 | (b[at + 2] & 0xFF) << 16 | (b[at + 3] & 0xFF) << 24;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /**
     * Why the bytes are not a bundle, or null when they are one: a jar whose manifest names the bundle and, when
     * {@code complete} is asked, whose every entry reads to its end and whose zip end record is there (so a jar
     * cut short is caught).
     */
    private static String notABundle(Content content, boolean complete) {
        try (JarInputStream in = new JarInputStream(content.stream())) {
            Manifest manifest = in.getManifest();
            if (manifest == null) {
                return "no META-INF/MANIFEST.MF";
            }
            if (manifest.getMainAttributes().getValue(Constants.BUNDLE_SYMBOLICNAME) == null) {
                return "the manifest has no " + Constants.BUNDLE_SYMBOLICNAME;
            }
            while (complete && in.getNextJarEntry() != null) {
                in.transferTo(OutputStream.nullOutputStream());
            }
        } catch (IOException | RuntimeException e) {
            return "not a readable jar (" + e.getMessage() + ")";
        }
        return !complete || endRecord(content.bytes()) >= 0 ? null
                : "the jar is cut short (no end of central directory)";
    }

    /** Where the zip end-of-central-directory record (signature "PK" 05 06) starts in the last 64 KiB + 22 bytes. */
    private static int endRecord(byte[] zip) {
        for (int i = zip.length - 22; i >= 0 && i >= zip.length - 22 - 0xFFFF; i--) {
            if (zip[i] == 'P' && zip[i + 1] == 'K' && zip[i + 2] == 5 && zip[i + 3] == 6) {
                return i;
            }
        }
        return -1;
    }

    private void refuse(Path jar, Content content, String problem, Changes changes) {
        refused.put(jar, content.digest());
        Bundle running = installed.containsKey(jar) ? system.getBundle(location(jar)) : null;
        changes.failed().add(jar.getFileName() + ": " + problem);
        LOG.error("refusing bundle jar file={} digest={}: not a bundle: {}; {}", jar, content.digest(), problem,
                running != null ? "the installed build " + describe(running) + " keeps running" : "nothing installed");
    }

    private static String location(Path jar) {
        return jar.toUri().toString();
    }

    private void install(Path jar, Content content, Changes changes, List<Bundle> toStart) {
        try {
            Bundle bundle = system.installBundle(location(jar), content.stream());
            installed.put(jar, content.digest());
            changes.installed().add(describe(bundle));
            if (startable(bundle)) {
                toStart.add(bundle);
            }
        } catch (BundleException | RuntimeException e) {
            refused.put(jar, content.digest());
            changes.failed().add(jar.getFileName() + ": " + e.getMessage());
            LOG.error("cannot install bundle file={}: {}", jar, e.getMessage());
        }
    }

    /** Whether a bundle just installed (or taken over from the cache) is to be started: not a fragment, not disabled. */
    private boolean startable(Bundle bundle) {
        if (bundle.getHeaders().get(Constants.FRAGMENT_HOST) != null) {
            return false; // fragments attach to their host; they cannot be started
        }
        String agentName = bundle.getHeaders().get(AGENT_BUNDLE_HEADER);
        if (agentName != null && disabled.contains(agentName)) {
            LOG.info("bundle installed but disabled by agent.bundles.{}.enabled bundle={}", agentName,
                    describe(bundle));
            return false;
        }
        return true;
    }

    /**
     * Stops the bundle (transiently: its autostart setting stays), updates it, and leaves the start to after the
     * refresh, so that it starts once. Left running, {@code update} would restart it and the refresh restart it
     * again: a kubelet would see each device plugin register twice, ~200 ms apart.
     */
    private void update(Path jar, Content content, Changes changes, List<Bundle> toRefresh, List<Bundle> toStart) {
        Bundle bundle = system.getBundle(location(jar));
        if (bundle == null) {
            installed.remove(jar);
            install(jar, content, changes, toStart);
            return;
        }
        boolean wasActive = (bundle.getState() & (Bundle.ACTIVE | Bundle.STARTING)) != 0;
        String previous = null;
        try {
            if (wasActive) {
                bundle.stop(Bundle.STOP_TRANSIENT);
            }
            if (cache != null) {
                // Until this sync records the new build, a crash in the update leaves the cache's build unknown:
                // the next start then installs the jar afresh instead of trusting a half-written revision.
                previous = installed.remove(jar);
                recordInCache();
            }
            bundle.update(content.stream());
            installed.put(jar, content.digest());
            changes.updated().add(describe(bundle));
            toRefresh.add(bundle);
        } catch (BundleException | RuntimeException e) {
            if (previous != null) {
                installed.put(jar, previous);
            }
            refused.put(jar, content.digest());
            changes.failed().add(jar.getFileName() + ": " + e.getMessage());
            LOG.error("cannot update bundle file={}: {}; the installed build {} stays", jar, e.getMessage(),
                    describe(bundle));
        }
        if (wasActive) {
            toStart.add(bundle);
        }
    }

    private void uninstall(Path jar, Changes changes, List<Bundle> toRefresh) {
        Bundle bundle = system.getBundle(location(jar));
        if (bundle == null) {
            return;
        }
        try {
            String name = describe(bundle);
            bundle.uninstall();
            toRefresh.add(bundle);
            changes.uninstalled().add(name);
        } catch (BundleException | RuntimeException e) {
            changes.failed().add(jar.getFileName() + ": " + e.getMessage());
            LOG.error("cannot uninstall bundle file={}: {}", jar, e.getMessage());
        }
    }

    /** Re-wires dependents of updated or removed bundles; waits so the next sync sees a settled framework. */
    private void refresh(List<Bundle> bundles) {
        CountDownLatch done = new CountDownLatch(1);
        system.getBundle(Constants.SYSTEM_BUNDLE_LOCATION).adapt(FrameworkWiring.class)
                .refreshBundles(bundles, event -> {
                    if (event.getType() == FrameworkEvent.PACKAGES_REFRESHED) {
                        done.countDown();
                    }
                });
        try {
            if (!done.await(30, TimeUnit.SECONDS)) {
                LOG.warn("bundle refresh did not finish within 30 s bundles={}", bundles);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Agent bundles (by {@code Agent-Bundle} name) started after the others: none of them is needed to serve
     * kubelet, and a crashed agent's pods cannot be admitted until its pools are registered again (issue 27), so
     * the discovery, the device-plugin layer, the kubelet host and the pools start first. The HTTP endpoint
     * (health, metrics), the CNI socket and the Freeflow router follow once the pools' first registration has
     * settled ({@link #beforeTheRest}), so that it does not share the two cores with their start.
     */
    static final Set<String> AFTER_KUBELET = Set.of("health", "metrics", "cni", "freeflow", "dra");

    /**
     * Agent bundles started before all others: the native layer binds libc on a thread of its own when it starts,
     * which then overlaps the rest of the kubelet path instead of holding up the first component that needs it.
     */
    static final Set<String> FIRST = Set.of("posix");

    /**
     * {@code bundles} in the order they start: directory order, the {@link #FIRST} ones first and the
     * {@link #AFTER_KUBELET} ones last.
     */
    static List<Bundle> startOrder(List<Bundle> bundles) {
        List<Bundle> ordered = new ArrayList<>(bundles);
        ordered.sort(java.util.Comparator.comparingInt(b -> {
            String name = String.valueOf(b.getHeaders().get(AGENT_BUNDLE_HEADER));
            return FIRST.contains(name) ? 0 : AFTER_KUBELET.contains(name) ? 2 : 1;
        }));
        return ordered;
    }

    private void start(List<Bundle> bundles, Changes changes) {
        boolean kubeletPathStarted = false;
        for (Bundle bundle : startOrder(bundles)) {
            boolean after = AFTER_KUBELET.contains(String.valueOf(bundle.getHeaders().get(AGENT_BUNDLE_HEADER)));
            if (after && kubeletPathStarted) {
                kubeletPathStarted = false;
                beforeTheRest.run();
            }
            kubeletPathStarted |= !after;
            try {
                // Transient: a persistent start writes each bundle's state into the cache (~12 ms for the 41 of a
                // start), and the next start clears it anyway (adopt): which bundles run is this launcher's call.
                bundle.start(Bundle.START_TRANSIENT);
            } catch (BundleException | RuntimeException e) {
                changes.failed().add(describe(bundle) + ": " + e.getMessage());
                LOG.error("cannot start bundle={}: {}", describe(bundle), e.getMessage());
            }
        }
    }

    static String describe(Bundle bundle) {
        return bundle.getSymbolicName() + "/" + bundle.getVersion();
    }
}
