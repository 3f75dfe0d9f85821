// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BundleCacheTest {

    @TempDir
    Path cacheDir;

    @Test
    void aRecordThatCannotBeWrittenLeavesNoneBehindSoTheNextStartIsFresh() throws Exception {
        BundleCache.prepare(cacheDir, "felix-a.jar").record(Map.of("file:/bundles/a.jar", "digest-1"));
        assertThat(BundleCache.prepare(cacheDir, "felix-a.jar").recorded()).containsEntry("file:/bundles/a.jar",
                "digest-1");
        Files.createDirectories(cacheDir.resolve(BundleCache.RECORD + ".tmp").resolve("in-the-way"));

        BundleCache.prepare(cacheDir, "felix-a.jar").record(Map.of("file:/bundles/a.jar", "digest-2"));

        // digest-1 would vouch for a build the cache may no longer hold: better no record at all.
        assertThat(cacheDir.resolve(BundleCache.RECORD)).doesNotExist();
        assertThat(BundleCache.prepare(cacheDir, "felix-a.jar").recorded()).isEmpty();
    }

    @Test
    void aCacheFromAnotherFrameworkIsRemoved() throws Exception {
        BundleCache.prepare(cacheDir, "felix-a.jar").record(Map.of("file:/bundles/a.jar", "digest-1"));
        Files.createDirectories(cacheDir.resolve("bundle1"));

        BundleCache other = BundleCache.prepare(cacheDir, "felix-b.jar");

        assertThat(other.recorded()).isEmpty();
        assertThat(cacheDir).doesNotExist();
    }
}
