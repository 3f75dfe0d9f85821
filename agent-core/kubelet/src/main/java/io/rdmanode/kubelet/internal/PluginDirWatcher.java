// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.rdmanode.agent.DirectoryWatcher;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Watches the device-plugins directory (the platform's {@link DirectoryWatcher}: inotify, and a poll every
 * second) and calls {@code onChange} when a socket file appears or disappears: kubelet deletes the plugin
 * sockets and creates a new {@code kubelet.sock} when it restarts. The directory may not exist yet (kubelet
 * creates it) or go away: {@code onChange} also runs when it (re)appears. The callback must be quick; it runs
 * on the watch thread.
 */
final class PluginDirWatcher implements AutoCloseable {

    private final DirectoryWatcher watcher;

    PluginDirWatcher(Path dir, Runnable onChange) throws IOException {
        this.watcher = DirectoryWatcher.of(dir).threadName("kubelet", "watch")
                .filter(name -> name.toString().endsWith(".sock")).pollInterval(Duration.ofSeconds(1)).build(onChange);
    }

    void start() {
        watcher.start();
    }

    @Override
    public void close() {
        watcher.close();
    }
}
