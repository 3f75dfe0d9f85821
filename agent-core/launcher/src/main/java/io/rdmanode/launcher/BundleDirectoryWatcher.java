// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import io.rdmanode.agent.DirectoryWatcher;
import java.io.IOException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches {@code bundles/} and syncs the framework after the directory has been quiet for a short while: a
 * {@code cp} of a large jar fires several events, and updating a half-written jar would fail. The platform's
 * {@link DirectoryWatcher} also polls the directory, for file systems that report no events. A watch event (a
 * {@code touch} fires one) only starts a sync; {@link BundleDirectory} decides by each jar's digest what changed.
 */
final class BundleDirectoryWatcher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BundleDirectoryWatcher.class);

    private final BundleDirectory directory;
    private final DirectoryWatcher watcher;

    BundleDirectoryWatcher(BundleDirectory directory, Duration quietPeriod, Duration pollInterval) throws IOException {
        this.directory = directory;
        this.watcher = DirectoryWatcher.of(directory.dir()).threadName("launcher", "bundle-watch")
                .quietPeriod(quietPeriod).pollInterval(pollInterval).build(this::syncNow);
    }

    /**
     * Starts the watch, then syncs once more as soon as it is up: a jar written while the first sync ran was seen
     * by no watch (the first sync now outlasts the pools' registration, so kubelet, an operator or a test may
     * already act on the agent then) and would wait for the next change in the directory.
     */
    void start() {
        watcher.start();
        Thread catchUp = new Thread(() -> {
            long end = System.nanoTime() + CATCH_UP_WAIT.toNanos();
            while (!watcher.watching() && System.nanoTime() < end) {
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
            syncNow();
        }, watcher.threadName() + "-catch-up");
        catchUp.setDaemon(true);
        catchUp.start();
    }

    /** How long the catch-up sync waits for the watch to be registered (a missing directory never is). */
    private static final java.time.Duration CATCH_UP_WAIT = java.time.Duration.ofSeconds(2);

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
    public void close() {
        watcher.close();
    }
}
