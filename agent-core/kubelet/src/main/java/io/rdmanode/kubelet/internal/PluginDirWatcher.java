// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the device-plugins directory (inotify through the JDK's WatchService) and calls {@code onChange}
 * when a socket file appears or disappears: kubelet deletes the plugin sockets and creates a new
 * {@code kubelet.sock} when it restarts. The callback must be quick; it runs on the watch thread.
 */
final class PluginDirWatcher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PluginDirWatcher.class);

    private final Path dir;
    private final Runnable onChange;
    private final WatchService watch;
    private final Thread thread;

    /** The directory may not exist yet (kubelet creates it): the watch starts once it does. */
    PluginDirWatcher(Path dir, Runnable onChange) throws IOException {
        this.dir = dir;
        this.onChange = onChange;
        this.watch = dir.getFileSystem().newWatchService();
        this.thread = new Thread(this::run, "rdma-agent-kubelet-watch");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run() {
        try {
            try {
                dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
            } catch (IOException e) {
                LOG.warn("device-plugins directory {} missing; waiting for kubelet to create it", dir);
                reRegisterLater();
            }
            while (true) {
                WatchKey key = watch.take();
                boolean relevant = false;
                for (WatchEvent<?> event : key.pollEvents()) {
                    relevant |= event.kind() == StandardWatchEventKinds.OVERFLOW
                            || event.context().toString().endsWith(".sock");
                }
                if (!key.reset()) {
                    LOG.warn("device-plugins directory {} is gone; waiting for it to come back", dir);
                    reRegisterLater();
                }
                if (relevant) {
                    onChange.run();
                }
            }
        } catch (ClosedWatchServiceException | InterruptedException e) {
            // closed: the host is stopping
        }
    }

    private void reRegisterLater() throws InterruptedException {
        while (true) {
            TimeUnit.SECONDS.sleep(1);
            try {
                dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
                LOG.info("watching device-plugins directory {} again", dir);
                onChange.run();
                return;
            } catch (IOException e) {
                LOG.debug("cannot watch {} yet: {}", dir, e.getMessage());
            }
        }
    }

    @Override
    public void close() {
        try {
            watch.close();
            thread.interrupt();
            thread.join(2000);
        } catch (IOException e) {
            LOG.warn("cannot close watch on {}: {}", dir, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
