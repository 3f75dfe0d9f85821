// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.agent.ConfigCheck;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.service.metatype.MetaTypeService;

/**
 * check-config's service refuses what a live reload refuses, with the same words ({@link SettledReloadTest}
 * shows the reload's side). In a framework with no other bundle, so no MetaType is ever asked for.
 */
class OfflineConfigCheckTest {

    @TempDir
    Path dir;

    private final OfflineConfigCheck check = new OfflineConfigCheck(InMemoryOsgi.context(),
            (MetaTypeService) bundle -> null);

    @Test
    void refusesAnEmptyFile() throws Exception {
        Path file = Files.createFile(dir.resolve("agent.conf"));

        ConfigCheck.Result result = check.check(file);

        assertThat(result.valid()).isFalse();
        assertThat(result.errors()).containsExactly(file + ": the file is empty (a save in progress? write the new"
                + " file beside it and rename it over)");
    }

    @Test
    void refusesAFileOverTheLimitNamingItsSize() throws Exception {
        Path file = dir.resolve("agent.conf");
        try (RandomAccessFile out = new RandomAccessFile(file.toFile(), "rw")) {
            out.setLength(12L << 20);
        }

        ConfigCheck.Result result = check.check(file);

        assertThat(result.errors()).containsExactly(file + ": the file is 12582912 bytes, over the limit of"
                + " 1048576 bytes (1 MiB) for a configuration file");
    }

    @Test
    void acceptsAFileAtTheLimit() throws Exception {
        Path file = dir.resolve("agent.conf");
        Files.writeString(file, "#".repeat(1 << 20));

        assertThat(check.check(file).errors()).isEmpty();
    }
}
