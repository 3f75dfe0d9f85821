// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.posix;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
        Posix posix = Posix.get();
        int fd = (int) posix.libc().syscall(Posix.SYS_PIDFD_OPEN, pid, 0);
        return new Pidfd(posix, pid, fd, fd >= 0 ? null : startTime(pid));
    }

    public boolean usesPidfd() {
        return fd >= 0;
    }

    public boolean alive() {
        if (fd >= 0) {
            byte[] pfd = new byte[8];
            ByteBuffer b = ByteBuffer.wrap(pfd).order(ByteOrder.nativeOrder());
            b.putInt(0, fd).putShort(4, Posix.POLLIN);
            int n = posix.libc().poll(pfd, 1, 0);
            return n == 0;
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
        posix.close(fd);
    }
}
