// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import java.io.IOException;
import java.net.URI;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * {@code <stateDir>/http.url}: the base URL the endpoint bound, for the launcher's readiness probe and the
 * end-to-end tests, which cannot know an ephemeral port otherwise. Written by rename so a reader never sees
 * half a URL.
 */
final class UrlFile {

    static final String NAME = "http.url";

    private final Path file;

    UrlFile(Path stateDir) {
        this.file = stateDir.resolve(NAME);
    }

    Path path() {
        return file;
    }

    void write(URI uri) throws IOException {
        Path temp = file.resolveSibling(NAME + ".tmp");
        Files.writeString(temp, uri + "\n");
        try {
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    void delete() throws IOException {
        Files.deleteIfExists(file);
    }
}
