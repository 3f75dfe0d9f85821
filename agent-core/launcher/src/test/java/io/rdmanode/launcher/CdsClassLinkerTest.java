// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.launcher.cdsfixture.LoadedNotLinked;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.apache.felix.framework.Felix;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;

/** A training run's class log read back: each class loaded from a bundle's jar is linked from that bundle. */
class CdsClassLinkerTest {

    private static final String FIXTURE = LoadedNotLinked.class.getName();

    @TempDir
    Path temp;

    private Felix felix;

    @BeforeEach
    void startFramework() throws Exception {
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
    void linksTheClassesTheLogSaysCameFromABundleAndNothingElse() throws Exception {
        Path jar = bundleWithFixture(temp.resolve("bundles/fixture.jar"));
        Bundle bundle = felix.getBundleContext().installBundle(jar.toUri().toString(), Files.newInputStream(jar));
        // The location is file:///..., the JVM logs file:/... (as -Xlog:class+load writes it on JDK 17 and 25).
        String source = "file:" + jar;
        Path log = Files.writeString(temp.resolve("agent.jsa.classes"), String.join("\n", List.of(
                "[0.004s][info][class,load] java.lang.Object source: shared objects file",
                "[0.367s][info][class,load] " + FIXTURE + " source: " + source,
                "[0.368s][info][class,load] " + FIXTURE + "$$Lambda$12/0x0000000801012345 source: " + FIXTURE,
                "[0.369s][info][class,load] org.example.Gone source: " + source,
                "[0.370s][info][class,load] org.example.Elsewhere source: file:/opt/other.jar",
                "[0.371s][info][gc] a line of another tag source: nowhere")) + "\n");

        int linked = CdsClassLinker.linkLoaded(log, felix.getBundleContext().getBundles());

        assertThat(linked).isEqualTo(1);                                 // the fixture; org.example.Gone is not there
        Class<?> fixture = bundle.loadClass(FIXTURE);
        assertThat(fixture.getClassLoader()).isNotSameAs(getClass().getClassLoader());
        assertThat(log).doesNotExist();
    }

    @Test
    void readsTheClassAndSourceOfALoadLineOnly() {
        assertThat(CdsClassLinker.parse("[1.2s][info][class,load] a.B source: file:/x/b.jar"))
                .contains(Map.entry("a.B", "file:/x/b.jar"));
        assertThat(CdsClassLinker.parse("[1.2s][info][class,load] a.B source: shared objects file (top)"))
                .contains(Map.entry("a.B", "shared objects file (top)"));
        assertThat(CdsClassLinker.parse("[1.2s][info][class,init] a.B source: file:/x/b.jar")).isEmpty();
        assertThat(CdsClassLinker.parse("garbage")).isEmpty();
        assertThat(CdsClassLinker.jarOf("file:/x/b.jar")).isEqualTo(CdsClassLinker.jarOf("file:///x/b.jar"));
        assertThat(CdsClassLinker.jarOf("jrt:/java.base")).isEmpty();
    }

    @Test
    void aMissingLogLinksNothing() {
        assertThat(CdsClassLinker.linkLoaded(temp.resolve("none.classes"), felix.getBundleContext().getBundles()))
                .isZero();
    }

    private static Path bundleWithFixture(Path jar) throws Exception {
        Files.createDirectories(jar.getParent());
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.putValue(Constants.BUNDLE_MANIFESTVERSION, "2");
        main.putValue(Constants.BUNDLE_SYMBOLICNAME, "test.cds.fixture");
        main.putValue(Constants.BUNDLE_VERSION, "1.0.0");
        String entry = FIXTURE.replace('.', '/') + ".class";
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream bundle = new JarOutputStream(out, manifest);
             InputStream bytes = CdsClassLinkerTest.class.getClassLoader().getResourceAsStream(entry)) {
            bundle.putNextEntry(new JarEntry(entry));
            bytes.transferTo(bundle);
            bundle.closeEntry();
        }
        return jar;
    }
}
