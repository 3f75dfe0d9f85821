// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.metrics.internal.infiniband;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Lists a counter directory discovery does not list for us ({@code counters_ext/}), once per plan. Most ports
 * have none (only mlx4/mlx5 InfiniBand ports do), so an absent or unreadable directory is simply no files.
 */
final class CounterFiles {

    private CounterFiles() {
    }

    /** The regular files in {@code dir}, sorted by name; empty when there is no such directory. */
    static List<Path> list(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, Files::isRegularFile)) {
            files.forEach(out::add);
        } catch (IOException e) {
            return List.of();
        }
        out.sort(null);
        return out;
    }
}
