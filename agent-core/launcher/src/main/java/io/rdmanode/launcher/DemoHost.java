// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The demo's private world: a temporary state directory for the framework cache, sockets and the HTTP URL
 * file, holding the recorded demo host unpacked under {@code host/} ({@code host/sys}, {@code host/dev}).
 * {@code config/demo.conf} points every path of the agent into it through {@code ${rdma.agent.stateDir}}, so
 * the demo is configuration, not a code path of the agent.
 */
final class DemoHost {

    static final String RECORDING = "config/demo-host/cx5-roce-sriov.ttar";
    private static final String UNPACKER = "io.rdmanode.discovery.internal.sysfs.TtarUnpacker";

    private DemoHost() {
    }

    /** Memory-backed when the machine has it: sysfs is too, and on some disks 2,000 small files take seconds. */
    private static final Path SHM = Path.of("/dev/shm");

    static Path prepare(Path home) throws IOException {
        return prepare(home, Files.isDirectory(SHM) && Files.isWritable(SHM) ? SHM
                : Path.of(System.getProperty("java.io.tmpdir")));
    }

    /** In {@code parent}, after removing what killed demos left there. */
    static Path prepare(Path home, Path parent) throws IOException {
        DemoLeftovers.clean(parent);
        Path dir = DemoLeftovers.create(parent);
        DemoLeftovers.claim(dir);
        Files.createDirectories(dir.resolve("device-plugins"));
        Path recording = home.resolve(RECORDING);
        if (Files.isRegularFile(recording)) {
            unpack(home.resolve("bundles"), recording, dir.resolve("host"));
        }
        return dir;
    }

    /**
     * The text-archive format belongs to the discovery bundle; its unpacker depends on nothing but the JDK, so
     * it is borrowed from the bundle jar here rather than copied into the launcher.
     */
    private static void unpack(Path bundles, Path recording, Path dest) throws IOException {
        Path jar = discoveryJar(bundles);
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()},
                DemoHost.class.getClassLoader())) {
            loader.loadClass(UNPACKER).getMethod("main", String[].class)
                    .invoke(null, (Object) new String[] {recording.toString(), dest.toString()});
        } catch (ClassNotFoundException | NoSuchMethodException | IllegalAccessException e) {
            throw new IOException("cannot unpack demo host " + recording + " with " + jar + ": " + e, e);
        } catch (InvocationTargetException e) {
            throw new IOException("cannot unpack demo host " + recording + ": " + e.getCause().getMessage(),
                    e.getCause());
        }
    }

    private static Path discoveryJar(Path bundles) throws IOException {
        try (DirectoryStream<Path> jars = Files.newDirectoryStream(bundles, "*discovery*.jar")) {
            for (Path jar : jars) {
                return jar;
            }
        }
        throw new IOException("no discovery bundle (*discovery*.jar) in " + bundles + " to unpack the demo host");
    }
}
