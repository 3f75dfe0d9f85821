// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.posix.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;

/**
 * Where jffi loads its JNI stub from: this bundle's data area in the framework cache (under the agent's state
 * directory), written once per cache, instead of a fresh copy in {@code java.io.tmpdir} at every start. jffi tries
 * {@value #BOOT_PATH_PROPERTY} before it extracts the stub from its jar; on a node whose {@code /tmp} is mounted
 * {@code noexec} (a common hardening, inherited by systemd's {@code PrivateTmp}) that extraction cannot be
 * loaded, and jffi then wrote the library into the process's working directory and loaded it from there. When
 * the copy cannot be made, or outside a framework (unit tests), nothing is set and jffi goes its own way.
 */
final class JffiStub {

    static final String BOOT_PATH_PROPERTY = "jffi.boot.library.path";
    /** {@code System.mapLibraryName("jffi-" + Version.MAJOR + "." + Version.MINOR)} of the embedded jffi. */
    static final String LIBRARY = "libjffi-" + com.kenai.jffi.Version.MAJOR + "." + com.kenai.jffi.Version.MINOR + ".so";

    private static boolean prepared;

    private JffiStub() {
    }

    /** Sets {@value #BOOT_PATH_PROPERTY} to this bundle's copy of the stub, once; the directory, if set. */
    static synchronized Optional<Path> prepare() {
        if (prepared) {
            return Optional.ofNullable(System.getProperty(BOOT_PATH_PROPERTY)).map(Path::of);
        }
        prepared = true;
        Optional<DataArea> area;
        try {
            area = DataArea.find();
        } catch (LinkageError noFramework) {          // no OSGi on the class path
            area = Optional.empty();
        }
        String set = System.getProperty(BOOT_PATH_PROPERTY);
        if (set != null && area.map(a -> !Path.of(set).startsWith(a.directory())).orElse(true)) {
            return Optional.of(Path.of(set));      // the operator's choice; an earlier revision's copy is replaced
        }
        Optional<String> platform = platform(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
        URL stub = platform.isEmpty() ? null
                : JffiStub.class.getClassLoader().getResource("jni/" + platform.get() + "/" + LIBRARY);
        if (area.isEmpty() || stub == null) {
            return Optional.empty();
        }
        try {
            // A directory per revision of this bundle: a JNI library stays with the class loader that loaded it
            // until that loader is collected, so the revision after a hot swap must load a file of its own.
            Path dir = area.get().directory().resolve(platform.get() + "-" + area.get().revision());
            copyIfDifferent(stub, dir.resolve(LIBRARY));
            removeOtherRevisions(area.get().directory(), dir);
            System.setProperty(BOOT_PATH_PROPERTY, dir.toString());
            return Optional.of(dir);
        } catch (IOException e) {
            return Optional.empty();             // jffi extracts it where it can, as without this class
        }
    }

    /**
     * This bundle's {@code jffi} directory in its data area and a stamp of its revision. The OSGi types stay in
     * this class: the posix library also runs on a plain class path (the Soft-RoCE VM's probes), without them.
     */
    record DataArea(Path directory, long revision) {

        static Optional<DataArea> find() {
            Bundle bundle = FrameworkUtil.getBundle(JffiStub.class);
            BundleContext context = bundle == null ? null : bundle.getBundleContext();
            java.io.File dir = context == null ? null : context.getDataFile("jffi");
            return dir == null ? Optional.empty() : Optional.of(new DataArea(dir.toPath(), bundle.getLastModified()));
        }
    }

    /** jffi's own name for the platform ({@code StubLoader.getPlatformName}), for the two the agent ships for. */
    static Optional<String> platform(String osName, String osArch) {
        if (!osName.toLowerCase(Locale.ROOT).startsWith("linux")) {
            return Optional.empty();
        }
        return switch (osArch.toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64" -> Optional.of("x86_64-Linux");
            case "aarch64" -> Optional.of("aarch64-Linux");
            default -> Optional.empty();
        };
    }

    /** Earlier revisions' copies; a copy still loaded stays mapped until its loader goes. Best effort. */
    private static void removeOtherRevisions(Path area, Path current) {
        try (var dirs = Files.list(area)) {
            for (Path dir : dirs.filter(d -> !d.equals(current)).toList()) {
                try (var files = Files.list(dir)) {
                    for (Path f : files.toList()) {
                        Files.deleteIfExists(f);
                    }
                }
                Files.deleteIfExists(dir);
            }
        } catch (IOException e) {
            // left for the next start
        }
    }

    /** Writes {@code target} (to a temporary name, then renamed) unless it already holds exactly these bytes. */
    static void copyIfDifferent(URL source, Path target) throws IOException {
        byte[] bytes;
        try (InputStream in = source.openStream()) {
            bytes = in.readAllBytes();
        }
        if (Files.isRegularFile(target) && Files.size(target) == bytes.length
                && Arrays.equals(Files.readAllBytes(target), bytes)) {
            return;
        }
        Files.createDirectories(target.getParent());
        Path tmp = Files.createTempFile(target.getParent(), target.getFileName().toString(), ".tmp");
        try {
            Files.write(tmp, bytes);
            Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
