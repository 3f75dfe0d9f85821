// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Arrays;
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
import org.osgi.framework.Constants;

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

    private Optional<Bundle> bundle(String symbolicName) {
        return Arrays.stream(felix.getBundleContext().getBundles())
                .filter(b -> symbolicName.equals(b.getSymbolicName())).findFirst();
    }

    /** A manifest-only bundle, written next to the target and renamed over it, like a careful deployer. */
    private void writeBundle(String file, String symbolicName, String agentName, String build) throws IOException {
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.putValue(Constants.BUNDLE_MANIFESTVERSION, "2");
        main.putValue(Constants.BUNDLE_SYMBOLICNAME, symbolicName);
        main.putValue(Constants.BUNDLE_VERSION, "1.0.0");
        main.putValue(BundleDirectory.AGENT_BUNDLE_HEADER, agentName);
        main.putValue("Test-Build", build);
        Path tmp = bundles.resolve("." + file + ".tmp");
        try (OutputStream out = Files.newOutputStream(tmp); JarOutputStream jar = new JarOutputStream(out, manifest)) {
            jar.flush();
        }
        // Same-second rewrites must still look changed: the size may be equal, so move the timestamp.
        Files.setLastModifiedTime(tmp, FileTime.from(Instant.now().plusSeconds(Long.parseLong(build))));
        Files.move(tmp, bundles.resolve(file), StandardCopyOption.REPLACE_EXISTING);
    }
}
