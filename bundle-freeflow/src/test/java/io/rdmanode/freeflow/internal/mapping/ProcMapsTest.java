// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.mapping;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The router's own address of an MR's pages, read from the kernel's list of this process's mappings. */
class ProcMapsTest {

    @Test
    void aMappedFileIsFoundAlsoOnceUnlinked(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("ff-mr-test");
        MappedByteBuffer mapped;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            mapped = ch.map(FileChannel.MapMode.READ_WRITE, 0, 8192);
        }
        mapped.put(0, (byte) 1);

        long start = ProcMaps.startOf(file).orElseThrow();
        assertThat(start % 4096).isZero();
        Files.delete(file);
        assertThat(ProcMaps.startOf(file)).hasValue(start);
        assertThat(ProcMaps.startOf(dir.resolve("never-mapped"))).isEmpty();
        assertThat(mapped.get(0)).isEqualTo((byte) 1);                        // still mapped while asserted
    }
}
