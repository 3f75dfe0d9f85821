// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RuntimeSettingsTest {

    @TempDir
    Path dir;

    /** Parsed whole, such a file ended check-config (and a start) with OutOfMemoryError in a 64 MiB heap. */
    @Test
    void refusesAFileOverTheLimitBeforeParsingIt() throws Exception {
        Path file = dir.resolve("agent.conf");
        try (RandomAccessFile out = new RandomAccessFile(file.toFile(), "rw")) {
            out.setLength(12L << 20);
        }

        assertThatThrownBy(() -> RuntimeSettings.resolve(file)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(file + ": the file is 12582912 bytes, over the limit of 1048576 bytes (1 MiB) for a"
                        + " configuration file");
    }

    @Test
    void readsAFileAtTheLimit() throws Exception {
        Path file = dir.resolve("agent.conf");
        Files.writeString(file, "agent.runtime.log.level = debug\n" + "#".repeat((1 << 20) - 32));

        assertThat(Files.size(file)).isEqualTo(1 << 20);
        assertThat(RuntimeSettings.read(file).logLevel()).hasToString("DEBUG");
    }
}
