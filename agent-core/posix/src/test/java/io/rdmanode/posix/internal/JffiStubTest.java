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

    @Test
    void outsideAFrameworkNothingIsSet() {
        assertThat(JffiStub.prepare()).isEmpty();
        assertThat(System.getProperty(JffiStub.BOOT_PATH_PROPERTY)).isNull();
    }
}
