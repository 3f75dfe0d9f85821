// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.handover.internal;

import io.rdmanode.posix.Errno;
import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The state directory's one writer: an exclusive {@code flock} on {@code <stateDir>/state.lock}, held by the
 * instance that writes there and released by a predecessor when it hands over. flock rather than the JDK's
 * FileLock (fcntl): it belongs to the open file, so two instances in one JVM (the tests) exclude each other too,
 * and the kernel drops it when a killed process's descriptors close.
 */
final class WriterLock implements AutoCloseable {

    private final Posix posix;
    private final Path path;
    private int fd = -1;
    private boolean held;

    WriterLock(Posix posix, Path path) {
        this.posix = posix;
        this.path = path;
    }

    /** Takes the lock if it is free; true when this instance holds it (now or already). */
    synchronized boolean tryAcquire() throws IOException {
        if (held) {
            return true;
        }
        if (fd < 0) {
            if (!Files.exists(path)) {
                try {
                    Files.createFile(path);
                } catch (java.nio.file.FileAlreadyExistsException raced) {
                    // another instance created it first: the same file
                }
            }
            fd = posix.open(path.toString(), Posix.O_RDONLY | Posix.O_CLOEXEC);
        }
        try {
            posix.flock(fd, Posix.LOCK_EX | Posix.LOCK_NB);
            held = true;
            return true;
        } catch (PosixException e) {
            if (e.errno() == Errno.EAGAIN) {
                return false;
            }
            throw new IOException("cannot lock " + path + ": " + e.reason(), e);
        }
    }

    synchronized boolean held() {
        return held;
    }

    /** Lets go of the lock (the file stays: the successor locks the same file). */
    @Override
    public synchronized void close() {
        if (fd >= 0) {
            posix.close(fd);
            fd = -1;
        }
        held = false;
    }
}
