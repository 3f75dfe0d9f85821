// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal;

import static org.assertj.core.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/**
 * A Debian binary a test runs ({@code promtool}, {@code prometheus}, from the {@code prometheus} package). In CI
 * (or as root, who could have installed it) a missing binary fails the test, naming the package, so a
 * forgotten install in {@code .ci/run} cannot pass silently; elsewhere the test is skipped with that message.
 */
public final class ExternalTool {

    private ExternalTool() {
    }

    public static Path require(String binary, String debianPackage) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            Path p = Path.of(dir, binary);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        String message = binary + " not found on PATH: install the Debian package '" + debianPackage
                + "' (apt-get install " + debianPackage + "; .ci/run does)";
        boolean mustHave = System.getenv("CI") != null || "root".equals(System.getProperty("user.name"));
        if (mustHave) {
            fail(message);
        }
        System.err.println("SKIPPED: " + message);
        Assumptions.abort(message);
        return null;
    }
}
