// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * This instance's Felix bundle cache: {@code <stateDir>/felix-cache} unless another running instance uses it (a
 * predecessor during a handover), then {@code felix-cache-2}, and so on. Felix writes its cache at start (what
 * {@link BundleCache} does not keep) and keeps reading bundle jars from it while it runs, so two instances must
 * never share one; a lock file per slot
 * ({@code felix-cache.lock}), held for the life of the process, says which are in use. A plain restart gets
 * {@code felix-cache} back; successive handovers alternate between the first two.
 */
final class FelixCacheSlot implements AutoCloseable {

    static final int SLOTS = 4;

    private final Path directory;
    private final FileChannel lockFile;
    private final FileLock lock;

    private FelixCacheSlot(Path directory, FileChannel lockFile, FileLock lock) {
        this.directory = directory;
        this.lockFile = lockFile;
        this.lock = lock;
    }

    /** The first free slot, locked; an IOException when all {@value #SLOTS} are in use. */
    static FelixCacheSlot claim(Path stateDir) throws IOException {
        for (int i = 1; i <= SLOTS; i++) {
            String name = i == 1 ? "felix-cache" : "felix-cache-" + i;
            FileChannel channel = FileChannel.open(stateDir.resolve(name + ".lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException heldInThisJvm) {
                lock = null;
            }
            if (lock != null) {
                return new FelixCacheSlot(stateDir.resolve(name), channel, lock);
            }
            channel.close();
        }
        throw new IOException("every framework cache slot in " + stateDir + " is in use: " + SLOTS
                + " instances run on this state directory");
    }

    Path directory() {
        return directory;
    }

    @Override
    public void close() throws IOException {
        lock.release();
        lockFile.close();
    }
}
