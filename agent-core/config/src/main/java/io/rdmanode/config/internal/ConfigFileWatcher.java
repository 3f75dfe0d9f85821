// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls back on any change in the config file's directory (inotify on Linux). The directory, not the file,
 * is watched because editors save by renaming a temporary over the file and Kubernetes updates a ConfigMap
 * by swapping a {@code ..data} symlink; the callback compares content checksums, so unrelated events cost a
 * file read.
 */
final class ConfigFileWatcher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConfigFileWatcher.class);

    private final WatchService service;
    private final Thread thread;

    ConfigFileWatcher(Path file, Runnable onChange) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        this.service = FileSystems.getDefault().newWatchService();
        dir.register(service, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY,
                StandardWatchEventKinds.ENTRY_DELETE);
        this.thread = new Thread(() -> loop(onChange), "rdma-agent-config-watch");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void loop(Runnable onChange) {
        try {
            while (true) {
                WatchKey key = service.take();
                key.pollEvents();
                onChange.run();
                if (!key.reset()) {
                    LOG.warn("config directory is no longer watchable; relying on the periodic check");
                    return;
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closed: the component is deactivating
        }
    }

    @Override
    public void close() throws IOException {
        service.close();
        thread.interrupt();
    }
}
