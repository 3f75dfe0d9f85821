// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.itest;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/**
 * Unpacks the recorded demo host for a test, outside the framework (in Pax Exam's configuration step): the
 * archive reader is internal to the discovery bundle and only reachable from the test's class path.
 */
final class RecordedHost {

    private RecordedHost() {
    }

    static Path unpack(Path dest) {
        try {
            if (java.nio.file.Files.exists(dest)) {
                try (var paths = java.nio.file.Files.walk(dest)) {
                    for (Path path : (Iterable<Path>) paths.sorted(java.util.Comparator.reverseOrder())::iterator) {
                        java.nio.file.Files.delete(path);
                    }
                }
            }
            io.rdmanode.agent.Ttar.unpack(Path.of(System.getProperty("itest.demoHost")), dest);
            return dest;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unpack the demo host into " + dest, e);
        }
    }
}
