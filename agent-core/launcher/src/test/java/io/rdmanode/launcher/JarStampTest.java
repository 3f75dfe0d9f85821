// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A jar's stamp on the real file system: what changes it and what does not. */
class JarStampTest {

    @TempDir
    Path temp;

    @Test
    void readingLeavesTheStampAndAnyWriteOrReplacementChangesIt() throws Exception {
        Path jar = Files.write(temp.resolve("a.jar"), new byte[] {1, 2, 3});
        String stamp = JarStamp.of(jar);
        Files.readAllBytes(jar);
        assertThat(JarStamp.of(jar)).isEqualTo(stamp);

        FileTime modified = Files.getLastModifiedTime(jar);
        Thread.sleep(20);                                  // past the file system's clock tick
        Files.write(jar, new byte[] {4, 5, 6});           // same length, same inode...
        Files.setLastModifiedTime(jar, modified);         // ...and the modification time put back
        String rewritten = JarStamp.of(jar);
        assertThat(rewritten).as("the change time moved").isNotEqualTo(stamp);

        Path other = Files.write(temp.resolve("b.jar"), new byte[] {4, 5, 6});
        Files.setLastModifiedTime(other, modified);
        Files.move(other, jar, StandardCopyOption.REPLACE_EXISTING);
        assertThat(JarStamp.of(jar)).as("another inode").isNotEqualTo(rewritten);
        assertThat(JarStamp.of(temp.resolve("missing.jar"))).isNull();
    }

    @Test
    void aStampIsSettledOnlyOnceItsChangeIsOlderThanTheSettleTime() throws Exception {
        Path jar = Files.write(temp.resolve("a.jar"), new byte[] {1});
        assertThat(JarStamp.settled(JarStamp.of(jar))).isFalse();
        long longAgo = TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis()) - JarStamp.SETTLE_NANOS - 1;
        assertThat(JarStamp.settled("1:2:1:0:" + longAgo)).isTrue();
    }
}
