// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.apache.felix.framework.Felix;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.Constants;
import org.osgi.framework.SynchronousBundleListener;

/** The bundles directory drives a real Felix: install, update in place, uninstall, disabled bundles. */
class BundleDirectoryTest {

    @TempDir
    Path temp;

    private Felix felix;
    private Path bundles;

    @BeforeEach
    void startFramework() throws Exception {
        bundles = Files.createDirectories(temp.resolve("bundles"));
        felix = new Felix(Map.of(Constants.FRAMEWORK_STORAGE, temp.resolve("cache").toString(),
                Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT));
        felix.start();
    }

    @AfterEach
    void stopFramework() throws Exception {
        felix.stop();
        felix.waitForStop(5000);
    }

    @Test
    void installsAndStartsEveryJarButLeavesDisabledOnesStopped() throws Exception {
        writeBundle("a.jar", "test.a", "alpha", "1");
        writeBundle("b.jar", "test.b", "beta", "1");
        BundleDirectory directory = new BundleDirectory(bundles, felix.getBundleContext(), Set.of("beta"));

        BundleDirectory.Changes changes = directory.sync();

        assertThat(changes.installed()).containsExactlyInAnyOrder("test.a/1.0.0", "test.b/1.0.0");
        assertThat(bundle("test.a").map(Bundle::getState)).contains(Bundle.ACTIVE);
        assertThat(bundle("test.b").map(Bundle::getState)).contains(Bundle.INSTALLED);
    }

    /**
     * An optional bundle switched on in the configuration ({@code agent.bundles.dra.enabled = true}) is installed
     * from {@code optional/}; a copy of it in {@code bundles/} wins; one switched off or absent is not installed.
     */
    @Test
    void optionalBundlesSwitchedOnAreInstalledFromTheOptionalDirectory() throws Exception {
        Path optional = Files.createDirectories(temp.resolve("optional"));
        Files.write(optional.resolve("rdma-agent-dra.jar"), jarBytes("test.dra", "dra", "1"));
        Files.write(optional.resolve("rdma-agent-other.jar"), jarBytes("test.other", "other", "1"));
        writeBundle("a.jar", "test.a", "alpha", "1");

        List<Path> selected = OptionalBundles.selected(optional, bundles, Set.of("dra", "alpha", "absent"));
        assertThat(selected).containsExactly(optional.resolve("rdma-agent-dra.jar"));
        BundleDirectory.Changes changes = new BundleDirectory(bundles, selected, felix.getBundleContext(), Set.of())
                .sync();
        assertThat(changes.installed()).containsExactlyInAnyOrder("test.a/1.0.0", "test.dra/1.0.0");
        assertThat(bundle("test.dra").map(Bundle::getState)).contains(Bundle.ACTIVE);
        assertThat(bundle("test.other")).isEmpty();

        Files.copy(optional.resolve("rdma-agent-dra.jar"), bundles.resolve("rdma-agent-dra.jar"));
        assertThat(OptionalBundles.selected(optional, bundles, Set.of("dra"))).isEmpty();
    }

    /**
     * The crash window (issue 27): what serves kubelet starts first (the native layer, which binds libc in the
     * background, before all), the HTTP endpoint, CNI and Freeflow after.
     */
    @Test
    void bundlesThatDoNotServeKubeletStartLast() throws Exception {
        writeBundle("a-cni.jar", "test.cni", "cni", "1");
        writeBundle("b-health.jar", "test.health", "health", "1");
        writeBundle("c-kubelet.jar", "test.kubelet", "kubelet", "1");
        writeBundle("d-freeflow.jar", "test.freeflow", "freeflow", "1");
        writeBundle("e-pools.jar", "test.pools", "deviceplugin-shared", "1");
        writeBundle("f-posix.jar", "test.posix", "posix", "1");
        List<String> started = new java.util.concurrent.CopyOnWriteArrayList<>();
        felix.getBundleContext().addBundleListener((SynchronousBundleListener) event -> {
            if (event.getType() == org.osgi.framework.BundleEvent.STARTED) {
                started.add(event.getBundle().getSymbolicName());
            }
        });

        new BundleDirectory(bundles, felix.getBundleContext(), Set.of()).sync();

        assertThat(started).containsExactly("test.posix", "test.kubelet", "test.pools", "test.cni", "test.health",
                "test.freeflow");
    }

    /**
     * Between the two groups the launcher lets the pools' first registration settle: the hook runs once, after
     * every bundle that serves kubelet started and before the first of the rest.
     */
    @Test
    void theRestStartsAfterTheHookBetweenTheGroups() throws Exception {
        writeBundle("a-cni.jar", "test.cni", "cni", "1");
        writeBundle("c-kubelet.jar", "test.kubelet", "kubelet", "1");
        writeBundle("d-health.jar", "test.health", "health", "1");
        List<String> events = new CopyOnWriteArrayList<>();
        felix.getBundleContext().addBundleListener((SynchronousBundleListener) event -> {
            if (event.getType() == BundleEvent.STARTED) {
                events.add(event.getBundle().getSymbolicName());
            }
        });
        BundleDirectory directory = new BundleDirectory(bundles, felix.getBundleContext(), Set.of());
        directory.beforeTheRest(() -> events.add("hook"));

        directory.sync();
        writeBundle("d-health.jar", "test.health", "health", "2");                // the rest alone: no hook
        directory.sync();

        assertThat(events).containsExactly("test.kubelet", "hook", "test.cni", "test.health", "test.health");
    }

    @Test
    void replacedJarIsUpdatedInPlaceAndOthersAreUntouched() throws Exception {
        writeBundle("a.jar", "test.a", "alpha", "1");
        writeBundle("b.jar", "test.b", "beta", "1");
        BundleDirectory directory = new BundleDirectory(bundles, felix.getBundleContext(), Set.of());
        directory.sync();
        long idBefore = bundle("test.a").orElseThrow().getBundleId();
        long bLastModified = bundle("test.b").orElseThrow().getLastModified();

        writeBundle("a.jar", "test.a", "alpha", "2");
        BundleDirectory.Changes changes = directory.sync();

        Bundle a = bundle("test.a").orElseThrow();
        assertThat(changes.updated()).containsExactly("test.a/1.0.0");
        assertThat(a.getBundleId()).isEqualTo(idBefore);
        assertThat(a.getHeaders().get("Test-Build")).isEqualTo("2");
        assertThat(a.getState()).isEqualTo(Bundle.ACTIVE);
        assertThat(bundle("test.b").orElseThrow().getLastModified()).isEqualTo(bLastModified);
    }

    @Test
    void removedJarIsUninstalledAndBrokenJarIsReportedWithoutStoppingTheRest() throws Exception {
        writeBundle("a.jar", "test.a", "alpha", "1");
        BundleDirectory directory = new BundleDirectory(bundles, felix.getBundleContext(), Set.of());
        directory.sync();

        Files.delete(bundles.resolve("a.jar"));
        Files.writeString(bundles.resolve("broken.jar"), "not a zip");
        BundleDirectory.Changes changes = directory.sync();

        assertThat(changes.uninstalled()).containsExactly("test.a/1.0.0");
        assertThat(changes.failed()).singleElement().asString().startsWith("broken.jar: ");
        assertThat(bundle("test.a")).isEmpty();
    }

    @Test
    void unchangedDirectoryIsANoOp() throws Exception {
        writeBundle("a.jar", "test.a", "alpha", "1");
        BundleDirectory directory = new BundleDirectory(bundles, felix.getBundleContext(), Set.of());
        directory.sync();

        assertThat(directory.sync().any()).isFalse();
    }

    @Test
    void changedJarRestartsItsBundleOnce() throws Exception {
        writeBundle("a.jar", "test.a", "alpha", "1");
        BundleDirectory directory = new BundleDirectory(bundles, felix.getBundleContext(), Set.of());
        directory.sync();
        List<String> events = new CopyOnWriteArrayList<>();
        felix.getBundleContext().addBundleListener((SynchronousBundleListener) e -> {
            if ("test.a".equals(e.getBundle().getSymbolicName())) {
                events.add(kind(e.getType()));
            }
        });

        writeBundle("a.jar", "test.a", "alpha", "2");
        directory.sync();

        assertThat(events).as("bundle events %s", events).filteredOn("STARTED"::equals).hasSize(1);
        assertThat(events).as("bundle events %s", events).filteredOn("STOPPED"::equals).hasSize(1);
        assertThat(bundle("test.a").orElseThrow().getHeaders().get("Test-Build")).isEqualTo("2");
    }

    @Test
    void touchedOrIdenticallyRewrittenJarsAreNotSwapped() throws Exception {
        writeBundle("a.jar", "test.a", "alpha", "1");
        writeBundle("b.jar", "test.b", "beta", "1");
        BundleDirectory directory = new BundleDirectory(bundles, felix.getBundleContext(), Set.of());
        directory.sync();
        List<BundleEvent> events = new CopyOnWriteArrayList<>();
        felix.getBundleContext().addBundleListener((SynchronousBundleListener) events::add);
        Path a = bundles.resolve("a.jar");
        byte[] bytes = Files.readAllBytes(a);

        Files.setLastModifiedTime(a, FileTime.from(Instant.now().plusSeconds(60)));      // touch
        assertThat(directory.sync().any()).isFalse();
        Files.write(a, bytes);                                                            // same bytes in place
        assertThat(directory.sync().any()).isFalse();
        Path copy = temp.resolve("a-copy.jar");                                           // cp over it: new inode
        Files.write(copy, bytes);
        Files.move(copy, a, StandardCopyOption.REPLACE_EXISTING);
        assertThat(directory.sync().any()).isFalse();

        assertThat(events).isEmpty();
    }

    @Test
    void jarThatIsNotABundleIsRefusedAndTheRunningBuildStays() throws Exception {
        writeBundle("a.jar", "test.a", "alpha", "1");
        BundleDirectory directory = new BundleDirectory(bundles, felix.getBundleContext(), Set.of());
        directory.sync();
        Path a = bundles.resolve("a.jar");
        byte[] build2 = jarBytes("test.a", "alpha", "2");

        Files.write(a, Arrays.copyOf(build2, build2.length / 2));                         // half written
        BundleDirectory.Changes half = directory.sync();
        assertThat(half.failed()).singleElement().asString().startsWith("a.jar: ");
        assertThat(directory.sync().any()).as("the same bad bytes are not tried again").isFalse();
        assertThat(bundle("test.a").orElseThrow().getHeaders().get("Test-Build")).isEqualTo("1");
        assertThat(bundle("test.a").orElseThrow().getState()).isEqualTo(Bundle.ACTIVE);

        Files.write(a, build2);                                                           // finished
        assertThat(directory.sync().updated()).containsExactly("test.a/1.0.0");
        assertThat(bundle("test.a").orElseThrow().getHeaders().get("Test-Build")).isEqualTo("2");
        assertThat(bundle("test.a").orElseThrow().getState()).isEqualTo(Bundle.ACTIVE);
    }

    @Test
    void newJarCutShortFailsToInstallAndIsInstalledOnceComplete() throws Exception {
        BundleDirectory directory = new BundleDirectory(bundles, felix.getBundleContext(), Set.of());
        byte[] build1 = jarBytes("test.a", "alpha", "1");
        Path a = bundles.resolve("a.jar");

        Files.write(a, Arrays.copyOf(build1, build1.length - 10));
        assertThat(directory.sync().failed()).singleElement().asString().startsWith("a.jar: ");
        assertThat(bundle("test.a")).isEmpty();

        Files.write(a, build1);
        assertThat(directory.sync().installed()).containsExactly("test.a/1.0.0");
        assertThat(bundle("test.a").map(Bundle::getState)).contains(Bundle.ACTIVE);
    }

    @Test
    void theContentDigestFollowsEveryEntrysBytesAndNotTheWholeFile() throws IOException {
        byte[] one = jarWith("lib/a.class", "AAAA");
        byte[] same = jarWith("lib/a.class", "AAAA");
        byte[] sameSizeOtherBytes = jarWith("lib/a.class", "AAAB");

        assertThat(BundleDirectory.contentDigest(same)).isEqualTo(BundleDirectory.contentDigest(one));
        assertThat(BundleDirectory.contentDigest(sameSizeOtherBytes)).isNotEqualTo(BundleDirectory.contentDigest(one));
        // Cut short, there is no central directory to digest: the bytes are digested whole, and differ.
        byte[] cut = java.util.Arrays.copyOf(one, one.length - 10);
        assertThat(BundleDirectory.contentDigest(cut)).isNotEqualTo(BundleDirectory.contentDigest(one));
    }

    /**
     * A restart over the kept cache (issue 23) installs nothing: every bundle is the same object Felix reloaded,
     * none is started by Felix's own start (their autostart setting from the last run is cleared), and the sync
     * starts them; a bundle disabled this time stays stopped although it ran last time.
     */
    @Test
    void aRestartOverTheKeptCacheInstallsNothingAndLeavesTheStartToTheSync() throws Exception {
        writeBundle("a.jar", "test.a", "alpha", "1");
        writeBundle("b.jar", "test.b", "beta", "1");
        Files.write(bundles.resolve("f.jar"), jarBytes("test.f", "fragment", "1", Map.of(Constants.FRAGMENT_HOST, "test.a")));
        Path cacheDir = temp.resolve("kept");
        long idOfA;
        try (KeptCacheRun first = new KeptCacheRun(cacheDir, Set.of())) {
            assertThat(first.directory.sync().installed()).hasSize(3);
            idOfA = first.bundle("test.a").getBundleId();
            first.bundle("test.a").getBundleContext().getDataFile("left-by-last-run").createNewFile();
        }
        assertThat(cacheDir.resolve(BundleCache.RECORD)).exists();

        try (KeptCacheRun second = new KeptCacheRun(cacheDir, Set.of("beta"))) {
            assertThat(second.bundle("test.a").getState()).isNotEqualTo(Bundle.ACTIVE);
            assertThat(second.bundle("test.b").getState()).isNotEqualTo(Bundle.ACTIVE);

            BundleDirectory.Changes changes = second.directory.sync();

            assertThat(changes.any()).isFalse();
            assertThat(second.bundle("test.a").getBundleId()).isEqualTo(idOfA);
            assertThat(second.bundle("test.f").getState()).isEqualTo(Bundle.RESOLVED);
            assertThat(second.bundle("test.a").getState()).isEqualTo(Bundle.ACTIVE);
            assertThat(second.bundle("test.b").getState() & (Bundle.ACTIVE | Bundle.STARTING)).isZero();
            // Bundle data is per run, as with a fresh cache: ConfigAdmin's stored configurations live there.
            assertThat(second.bundle("test.a").getBundleContext().getDataFile("left-by-last-run")).doesNotExist();
        }
    }

    /** Jars changed, added or removed while the agent was down are updated, installed, uninstalled at the start. */
    @Test
    void jarsChangedWhileTheAgentWasDownAreAppliedAtTheNextStart() throws Exception {
        Path cacheDir = firstRunWithAAndB();
        writeBundle("a.jar", "test.a", "alpha", "2");
        Files.delete(bundles.resolve("b.jar"));
        writeBundle("c.jar", "test.c", "gamma", "1");

        try (KeptCacheRun second = new KeptCacheRun(cacheDir, Set.of())) {
            BundleDirectory.Changes changes = second.directory.sync();

            assertThat(changes.updated()).containsExactly("test.a/1.0.0");
            assertThat(changes.installed()).containsExactly("test.c/1.0.0");
            assertThat(second.bundle("test.a").getHeaders().get("Test-Build")).isEqualTo("2");
            assertThat(second.bundle("test.a").getState()).isEqualTo(Bundle.ACTIVE);
            assertThat(second.bundle("test.c").getState()).isEqualTo(Bundle.ACTIVE);
            assertThat(second.bundles()).noneMatch(b -> "test.b".equals(b.getSymbolicName()));
        }
        try (KeptCacheRun third = new KeptCacheRun(cacheDir, Set.of())) {
            assertThat(third.directory.sync().any()).isFalse();
            assertThat(third.bundle("test.a").getHeaders().get("Test-Build")).isEqualTo("2");
        }
    }

    /**
     * A start reads no jar whose stamp (inode, size, times) the record holds unchanged; a jar written over in
     * place with its length and modification time kept (a {@code cp -p}, a package's files) has another stamp
     * and is read, and its new build installed.
     */
    @Test
    void aRecordedStampSparesTheReadOnlyWhileTheJarIsUntouched() throws Exception {
        writeBundle("a.jar", "test.a", "alpha", "1");
        writeBundle("b.jar", "test.b", "beta", "1");
        Thread.sleep(java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(JarStamp.SETTLE_NANOS) + 100);
        Path cacheDir = temp.resolve("kept");
        try (KeptCacheRun first = new KeptCacheRun(cacheDir, Set.of())) {
            first.directory.sync();
        }
        Path a = bundles.resolve("a.jar");
        assertThat(BundleCache.prepare(cacheDir, "test-felix.jar").recordedStamps())
                .containsEntry(a.toUri().toString(), JarStamp.of(a))
                .containsEntry(bundles.resolve("b.jar").toUri().toString(), JarStamp.of(bundles.resolve("b.jar")));

        FileTime modified = Files.getLastModifiedTime(a);
        byte[] build2 = jarBytes("test.a", "alpha", "2");
        Files.write(a, build2);                            // in place: the same inode
        Files.setLastModifiedTime(a, modified);
        try (KeptCacheRun second = new KeptCacheRun(cacheDir, Set.of())) {
            BundleDirectory.Changes changes = second.directory.sync();

            assertThat(changes.updated()).containsExactly("test.a/1.0.0");
            assertThat(second.bundle("test.a").getHeaders().get("Test-Build")).isEqualTo("2");
        }
    }

    /**
     * The cache is trusted only through its record: without one (a crash before the first sync ended, a cache
     * from before this change) it is removed and every jar installed afresh; a cached bundle the record does not
     * name (installed in a sync that never finished) is replaced by its jar's build.
     */
    @Test
    void aCacheIsTrustedOnlyAsFarAsItsRecordGoes() throws Exception {
        Path cacheDir = firstRunWithAAndB();
        Path record = cacheDir.resolve(BundleCache.RECORD);
        java.util.Properties properties = new java.util.Properties();
        try (var in = Files.newInputStream(record)) {
            properties.load(in);
        }
        properties.remove(bundles.resolve("a.jar").toUri().toString());
        try (var out = Files.newOutputStream(record)) {
            properties.store(out, null);
        }
        try (KeptCacheRun second = new KeptCacheRun(cacheDir, Set.of())) {
            BundleDirectory.Changes changes = second.directory.sync();
            assertThat(changes.installed()).containsExactly("test.a/1.0.0");
            assertThat(second.bundle("test.a").getState()).isEqualTo(Bundle.ACTIVE);
            assertThat(second.bundle("test.b").getState()).isEqualTo(Bundle.ACTIVE);
        }

        Files.delete(record);
        try (KeptCacheRun third = new KeptCacheRun(cacheDir, Set.of())) {
            assertThat(third.directory.sync().installed()).containsExactlyInAnyOrder("test.a/1.0.0", "test.b/1.0.0");
        }
        try (KeptCacheRun otherFramework = new KeptCacheRun(cacheDir, Set.of(), "another-felix.jar")) {
            assertThat(otherFramework.directory.sync().installed()).hasSize(2);
        }
    }

    /**
     * The same state directory under a distribution in another directory (a copy, an install moved or upgraded
     * beside the old one, which is still there): the bundles cached from the old directory are not adopted, so
     * the new directory's builds of the same bundles (same symbolic names and versions) install and start. Before,
     * every install failed ("symbolic name and version are not unique") and the agent ran without bundles.
     */
    @Test
    void bundlesCachedFromAnotherDistributionDirectoryGiveWayToThisOnesJars() throws Exception {
        Path cacheDir = firstRunWithAAndB();
        Path other = Files.createDirectories(temp.resolve("other-home-bundles"));
        Files.copy(bundles.resolve("a.jar"), other.resolve("a.jar"));
        Files.copy(bundles.resolve("b.jar"), other.resolve("b.jar"));

        try (KeptCacheRun moved = new KeptCacheRun(cacheDir, Set.of(), "test-felix.jar", other)) {
            BundleDirectory.Changes changes = moved.directory.sync();

            assertThat(changes.failed()).isEmpty();
            assertThat(changes.installed()).containsExactlyInAnyOrder("test.a/1.0.0", "test.b/1.0.0");
            assertThat(moved.bundles()).filteredOn(b -> b.getBundleId() != 0)
                    .allSatisfy(b -> assertThat(b.getLocation()).startsWith(other.toUri().toString()))
                    .allSatisfy(b -> assertThat(b.getState()).isEqualTo(Bundle.ACTIVE))
                    .hasSize(2);
        }
        try (KeptCacheRun back = new KeptCacheRun(cacheDir, Set.of())) {    // and back to the first directory
            assertThat(back.directory.sync().failed()).isEmpty();
            assertThat(back.bundle("test.a").getState()).isEqualTo(Bundle.ACTIVE);
            assertThat(back.bundle("test.a").getLocation()).startsWith(bundles.toUri().toString());
        }
    }

    @Test
    void theDigestOnDiskReadsOnlyTheCentralDirectoryAndEqualsTheContentDigest() throws IOException {
        byte[] jar = jarBytes("test.a", "alpha", "1");
        Path file = Files.write(temp.resolve("a.jar"), jar);
        assertThat(BundleDirectory.digestOnDisk(file)).isEqualTo(BundleDirectory.contentDigest(jar));

        byte[] cut = Arrays.copyOf(jar, jar.length - 10);
        Files.write(file, cut);
        assertThat(BundleDirectory.digestOnDisk(file)).isEqualTo(BundleDirectory.contentDigest(cut));
        assertThat(BundleDirectory.digestOnDisk(temp.resolve("missing.jar"))).isNull();
    }

    /** Jars a and b, installed by a first run over a kept cache (stopped again); returns the cache directory. */
    private Path firstRunWithAAndB() throws Exception {
        writeBundle("a.jar", "test.a", "alpha", "1");
        writeBundle("b.jar", "test.b", "beta", "1");
        Path cacheDir = temp.resolve("kept");
        try (KeptCacheRun first = new KeptCacheRun(cacheDir, Set.of())) {
            first.directory.sync();
        }
        return cacheDir;
    }

    /** One start of a framework over a kept cache: prepare, init, adopt, start (as AgentFramework does). */
    private final class KeptCacheRun implements AutoCloseable {
        final Felix framework;
        final BundleDirectory directory;

        KeptCacheRun(Path cacheDir, Set<String> disabled) throws Exception {
            this(cacheDir, disabled, "test-felix.jar");
        }

        KeptCacheRun(Path cacheDir, Set<String> disabled, String frameworkName) throws Exception {
            this(cacheDir, disabled, frameworkName, bundles);
        }

        KeptCacheRun(Path cacheDir, Set<String> disabled, String frameworkName, Path bundlesDir) throws Exception {
            BundleCache cache = BundleCache.prepare(cacheDir, frameworkName);
            framework = new Felix(Map.of(Constants.FRAMEWORK_STORAGE, cacheDir.toString()));
            framework.init();
            directory = new BundleDirectory(bundlesDir, framework.getBundleContext(), disabled);
            directory.adopt(cache);
            framework.start();
        }

        List<Bundle> bundles() {
            return List.of(framework.getBundleContext().getBundles());
        }

        Bundle bundle(String symbolicName) {
            return bundles().stream().filter(b -> symbolicName.equals(b.getSymbolicName())).findFirst().orElseThrow();
        }

        @Override
        public void close() throws Exception {
            framework.stop();
            framework.waitForStop(5000);
        }
    }

    /** One stored entry with a fixed time, so two calls with the same content give the same bytes. */
    private static byte[] jarWith(String name, String content) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(out)) {
            java.util.jar.JarEntry entry = new java.util.jar.JarEntry(name);
            entry.setTime(0);
            jar.putNextEntry(entry);
            jar.write(content.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            jar.closeEntry();
        }
        return out.toByteArray();
    }

    private static String kind(int type) {
        return switch (type) {
            case BundleEvent.STARTED -> "STARTED";
            case BundleEvent.STOPPED -> "STOPPED";
            case BundleEvent.UPDATED -> "UPDATED";
            case BundleEvent.UNRESOLVED -> "UNRESOLVED";
            case BundleEvent.RESOLVED -> "RESOLVED";
            default -> "type-" + type;
        };
    }

    private Optional<Bundle> bundle(String symbolicName) {
        return Arrays.stream(felix.getBundleContext().getBundles())
                .filter(b -> symbolicName.equals(b.getSymbolicName())).findFirst();
    }

    /** A manifest-only bundle, written next to the target and renamed over it, like a careful deployer. */
    private void writeBundle(String file, String symbolicName, String agentName, String build) throws IOException {
        Path tmp = bundles.resolve("." + file + ".tmp");
        Files.write(tmp, jarBytes(symbolicName, agentName, build));
        Files.move(tmp, bundles.resolve(file), StandardCopyOption.REPLACE_EXISTING);
    }

    private static byte[] jarBytes(String symbolicName, String agentName, String build) throws IOException {
        return jarBytes(symbolicName, agentName, build, Map.of());
    }

    private static byte[] jarBytes(String symbolicName, String agentName, String build, Map<String, String> headers)
            throws IOException {
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.putValue(Constants.BUNDLE_MANIFESTVERSION, "2");
        main.putValue(Constants.BUNDLE_SYMBOLICNAME, symbolicName);
        main.putValue(Constants.BUNDLE_VERSION, "1.0.0");
        main.putValue(BundleDirectory.AGENT_BUNDLE_HEADER, agentName);
        main.putValue("Test-Build", build);
        headers.forEach(main::putValue);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JarOutputStream jar = new JarOutputStream(out, manifest)) {
            jar.flush();
        }
        return out.toByteArray();
    }
}
