// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.posix.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JffiStubTest {

    @TempDir
    Path temp;

    @Test
    void namesThePlatformsAsJffiDoes() {
        assertThat(JffiStub.platform("Linux", "amd64")).contains("x86_64-Linux");
        assertThat(JffiStub.platform("Linux", "x86_64")).contains("x86_64-Linux");
        assertThat(JffiStub.platform("Linux", "aarch64")).contains("aarch64-Linux");
        assertThat(JffiStub.platform("Linux", "s390x")).isEmpty();
        assertThat(JffiStub.platform("Mac OS X", "aarch64")).isEmpty();
    }

    @Test
    void theEmbeddedJffiHasTheStubWhereTheNameSaysAndItIsCopiedOnlyWhenItDiffers() throws Exception {
        var stub = JffiStub.class.getClassLoader().getResource("jni/x86_64-Linux/" + JffiStub.LIBRARY);
        assertThat(stub).as("the jffi native jar's stub for x86-64 (a new jffi renamed it?)").isNotNull();
        Path target = temp.resolve("jffi/x86_64-Linux").resolve(JffiStub.LIBRARY);

        JffiStub.copyIfDifferent(stub, target);
        byte[] written = Files.readAllBytes(target);
        assertThat(written).hasSizeGreaterThan(10_000);
        FileTime old = FileTime.from(Instant.parse("2020-01-01T00:00:00Z"));
        Files.setLastModifiedTime(target, old);

        JffiStub.copyIfDifferent(stub, target);                       // the same bytes: left alone
        assertThat(Files.getLastModifiedTime(target)).isEqualTo(old);

        Files.write(target, new byte[] {1, 2, 3});                   // another jffi's stub, or a torn copy
        JffiStub.copyIfDifferent(stub, target);
        assertThat(Files.readAllBytes(target)).isEqualTo(written);
        try (var left = Files.list(target.getParent())) {
            assertThat(left).containsExactly(target);                // no temporary file stays behind
        }
    }

    /** The posix library on a plain class path without OSGi, as the Soft-RoCE VM's probes run it. */
    @Test
    void libcBindsWithoutOsgiOnTheClassPath() throws Exception {
        String classPath = java.util.Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .filter(entry -> !entry.contains("osgi")).collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                classPath, PlainClassPath.class.getName()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(output).isZero();
        assertThat(output).contains("pipe read 3 bytes");
    }

    /** A {@code Posix.libc()} caller outside any framework. */
    static final class PlainClassPath {
        public static void main(String[] args) {
            io.rdmanode.posix.Posix libc = io.rdmanode.posix.Posix.libc();
            io.rdmanode.posix.Pipe pipe = libc.pipe2(io.rdmanode.posix.Posix.O_CLOEXEC);
            libc.write(pipe.writeFd(), new byte[] {1, 2, 3}, 3);
            System.out.println("pipe read " + libc.read(pipe.readFd(), new byte[3], 3) + " bytes");
        }
    }

    @Test
    void outsideAFrameworkNothingIsSet() {
        assertThat(JffiStub.prepare()).isEmpty();
        assertThat(System.getProperty(JffiStub.BOOT_PATH_PROPERTY)).isNull();
    }
}
