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

    void start() {
        watcher.start();
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
    public void close() {
        watcher.close();
    }
}
