// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.typesafe.config.Config;
import io.rdmanode.agent.AgentProperties;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/**
 * The system bundle exports packages of the launcher's class path with versions typed out in
 * {@link AgentFramework} (no manifest reading at start-up); they must be the versions those jars declare, or
 * bundles importing them would not resolve (or resolve against a second copy).
 */
class SystemPackagesTest {

    @Test
    void exportsThePlatformApiAndTypesafeConfigAndSlf4jWithTheVersionsTheirJarsDeclare() throws Exception {
        String extra = AgentFramework.systemPackagesExtra();

        assertThat(extra).contains("io.rdmanode.agent;version="
                + exportVersion(AgentProperties.class, "io.rdmanode.agent"));
        assertThat(extra).contains("com.typesafe.config;version="
                + exportVersion(Config.class, "com.typesafe.config"));
        assertThat(extra).contains("org.slf4j;version=" + manifest(Logger.class).getMainAttributes()
                .getValue("Bundle-Version"));
    }

    private static String exportVersion(Class<?> type, String pkg) throws IOException, URISyntaxException {
        String exports = manifest(type).getMainAttributes().getValue("Export-Package");
        Matcher m = Pattern.compile("(?:^|,)" + Pattern.quote(pkg) + ";[^,]*?version=\"([^\"]+)\"").matcher(exports);
        assertThat(m.find()).as("%s in %s", pkg, exports).isTrue();
        return m.group(1);
    }

    /** The manifest of the jar (or the bnd-processed classes directory, in a reactor build) holding {@code type}. */
    private static Manifest manifest(Class<?> type) throws IOException, URISyntaxException {
        Path source = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (Files.isDirectory(source)) {
            try (InputStream in = Files.newInputStream(source.resolve("META-INF/MANIFEST.MF"))) {
                return new Manifest(in);
            }
        }
        try (JarFile jar = new JarFile(source.toFile())) {
            return jar.getManifest();
        }
    }
}
