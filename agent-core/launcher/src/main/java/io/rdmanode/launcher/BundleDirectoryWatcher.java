// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches {@code bundles/} and syncs the framework after the directory has been quiet for a short while: a
 * {@code cp} of a large jar fires several events, and updating a half-written jar would fail.
 */
final class BundleDirectoryWatcher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BundleDirectoryWatcher.class);

    private final BundleDirectory directory;
    private final Duration quietPeriod;
    private final WatchService watcher;
    private final Thread thread;

    BundleDirectoryWatcher(BundleDirectory directory, Duration quietPeriod) throws IOException {
        this.directory = directory;
        this.quietPeriod = quietPeriod;
        this.watcher = FileSystems.getDefault().newWatchService();
        directory.dir().register(watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE,
                StandardWatchEventKinds.ENTRY_MODIFY);
        this.thread = new Thread(this::run, "rdma-agent-launcher-bundle-watch");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run() {
        try {
            while (true) {
                WatchKey key = watcher.take();
                drain(key);
                // Wait until no event has arrived for the quiet period.
                WatchKey more;
                while ((more = watcher.poll(quietPeriod.toMillis(), TimeUnit.MILLISECONDS)) != null) {
                    drain(more);
                }
                syncNow();
            }
        } catch (InterruptedException | ClosedWatchServiceException stopped) {
            LOG.debug("bundle directory watch stopped");
        }
    }

    private static void drain(WatchKey key) {
        key.pollEvents();
        key.reset();
    }

    private void syncNow() {
        try {
            BundleDirectory.Changes changes = directory.sync();
            if (changes.any()) {
                LOG.info("bundles changed installed={} updated={} uninstalled={} failed={}", changes.installed(),
                        changes.updated(), changes.uninstalled(), changes.failed());
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("cannot sync bundle directory dir={}: {}", directory.dir(), e.toString());
        }
    }

    @Override
    public void close() throws IOException {
        watcher.close();
        thread.interrupt();
    }
}
