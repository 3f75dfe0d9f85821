// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The build check of issue #9: fails when a shipped bundle imports another bundle's {@code internal} package
 * (rule and exceptions in {@link InternalImports}), read from the manifests of the built distribution.
 */
class ShippedBundlesIT {

    @Test
    void noShippedBundleImportsAnotherBundlesInternalPackage() throws IOException {
        List<Path> jars = new ArrayList<>();
        for (String dir : List.of("bundles", "optional")) {         // optional/: bundles an operator adds
            try (Stream<Path> files = Files.list(ShippedConfigIT.DIST.resolve(dir))) {
                jars.addAll(files.filter(f -> f.toString().endsWith(".jar")).sorted().toList());
            }
        }
        assertThat(jars).as("bundles of %s", ShippedConfigIT.DIST).isNotEmpty();
        List<String> violations = new ArrayList<>();
        for (Path jar : jars) {
            violations.addAll(InternalImports.read(jar).violations());
        }
        assertThat(violations).as("internal packages reached across bundles").isEmpty();
    }
}
