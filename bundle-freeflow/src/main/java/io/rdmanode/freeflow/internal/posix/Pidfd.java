// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.posix;

import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Liveness of a client process. A pidfd (Linux 5.3+) becomes readable when the process exits and cannot be fooled
 * by pid reuse; without pidfd support the process's start time from /proc/<pid>/stat plays that role.
 */
public final class Pidfd implements AutoCloseable {
    private final Posix posix;
    private final int pid;
    private final int fd;
    private final String startTime;

    private Pidfd(Posix posix, int pid, int fd, String startTime) {
        this.posix = posix;
        this.pid = pid;
        this.fd = fd;
        this.startTime = startTime;
    }

    public static Pidfd open(int pid) {
        Posix posix = Posix.libc();
        int fd;
        try {
            fd = posix.pidfdOpen(pid, 0);
        } catch (PosixException noPidfd) {
            fd = -1;                                        // ENOSYS before Linux 5.3, ESRCH for a pid gone
        }
        return new Pidfd(posix, pid, fd, fd >= 0 ? null : startTime(pid));
    }

    public boolean usesPidfd() {
        return fd >= 0;
    }

    public boolean alive() {
        if (fd >= 0) {
            return posix.poll(new int[] {fd}, Posix.POLLIN, 0)[0] == 0;
        }
        String now = startTime(pid);
        return now != null && now.equals(startTime);
    }

    private static String startTime(int pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Integer.toString(pid), "stat"));
            String[] rest = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return rest[19];
        } catch (java.io.IOException | RuntimeException gone) {
            return null;
        }
    }

    @Override
    public void close() {
        if (fd >= 0) {
            posix.close(fd);
        }
    }
}
