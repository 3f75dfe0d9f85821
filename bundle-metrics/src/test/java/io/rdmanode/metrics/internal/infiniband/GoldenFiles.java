// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Golden files beside the fixtures: {@code fixtures/sysfs/expected-<host>.prom}. Run the tests with
 * {@code -Dmetrics.golden.update=true} to rewrite them from the current output; then check the diff by hand
 * against the fixture values (see {@code counter-values.py}).
 */
final class GoldenFiles {

    private GoldenFiles() {
    }

    static void assertMatches(String name, String actual) throws IOException {
        if (Boolean.getBoolean("metrics.golden.update")) {
            Path src = Path.of("src/test/resources/fixtures/sysfs", name);
            Files.writeString(src, actual);
        }
        try (InputStream in = GoldenFiles.class.getResourceAsStream("/fixtures/sysfs/" + name)) {
            assertThat(in).as("golden file fixtures/sysfs/%s", name).isNotNull();
            assertThat(actual).isEqualTo(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }
}
