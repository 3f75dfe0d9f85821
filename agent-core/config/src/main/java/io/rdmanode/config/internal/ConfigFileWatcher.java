// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import io.rdmanode.agent.DirectoryWatcher;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Calls back on any change in the config file's directory (inotify on Linux, and a poll every
 * {@code pollInterval} for file systems without change notification: some network and overlay mounts). The
 * directory, not the file, is watched because editors save by renaming a temporary over the file and Kubernetes
 * updates a ConfigMap by swapping a {@code ..data} symlink; the callback compares content checksums, so
 * unrelated events cost a file read.
 */
final class ConfigFileWatcher implements AutoCloseable {

    private final DirectoryWatcher watcher;

    ConfigFileWatcher(Path file, Duration pollInterval, Runnable onChange) throws IOException {
        this.watcher = DirectoryWatcher.of(file.toAbsolutePath().getParent()).threadName("config", "watch")
                .pollInterval(pollInterval).build(onChange);
    }

    void start() {
        watcher.start();
    }

    @Override
    public void close() {
        watcher.close();
    }
}
