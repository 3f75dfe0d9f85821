// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.posix;

import java.io.IOException;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;

/** The loaded libc, errno access and the few constants of Linux (x86-64 and aarch64 share them). */
public final class Posix {
    public static final int AF_UNIX = 1;
    public static final int SOCK_STREAM = 1;
    public static final int SOCK_CLOEXEC = 0x80000;
    public static final int SOL_SOCKET = 1;
    public static final int SO_PEERCRED = 17;
    public static final int SO_RCVTIMEO = 20;
    public static final int SCM_RIGHTS = 1;
    public static final int SHUT_RDWR = 2;
    public static final int EINTR = 4;
    public static final int EFD_CLOEXEC = 0x80000;
    public static final int EFD_NONBLOCK = 0x800;
    public static final int MSG_NOSIGNAL = 0x4000;
    /** pidfd_open(2): the same number on every architecture since Linux 5.3. */
    public static final long SYS_PIDFD_OPEN = 434;
    public static final short POLLIN = 1;
    /** prctl(2) through syscall(2) (x86_64 number; prctl itself is variadic), and its timer-slack options. */
    public static final long SYS_PRCTL = 157;
    public static final long PR_SET_TIMERSLACK = 29;
    public static final long PR_GET_TIMERSLACK = 30;

    private static volatile Posix instance;
    private final LibC libc;
    private final Runtime runtime;

    private Posix(LibC libc) {
        this.libc = libc;
        this.runtime = Runtime.getRuntime(libc);
    }

    /** libc, loaded on first use; the bundle's own class loader finds the embedded jnr-ffi. */
    public static Posix get() {
        Posix p = instance;
        if (p == null) {
            synchronized (Posix.class) {
                p = instance;
                if (p == null) {
                    p = new Posix(LibraryLoader.create(LibC.class).load("c"));
                    instance = p;
                }
            }
        }
        return p;
    }

    public LibC libc() {
        return libc;
    }

    public Runtime runtime() {
        return runtime;
    }

    public int errno() {
        return runtime.getLastError();
    }

    public IOException error(String what) {
        int e = errno();
        return new IOException(what + ": " + libc.strerror(e) + " (errno " + e + ")");
    }

    /**
     * Sets the calling thread's timer slack (how late the kernel may wake a sleeping thread, 50 us by default: a
     * 1 us park then takes ~60 us). Returns the slack in force afterwards, or -1 when the kernel refused.
     */
    public long timerSlack(long nanos) {
        if (libc.syscall(SYS_PRCTL, PR_SET_TIMERSLACK, nanos) != 0) {
            return -1;
        }
        return libc.syscall(SYS_PRCTL, PR_GET_TIMERSLACK, 0);
    }

    public void close(int fd) {
        if (fd >= 0) {
            libc.close(fd);
        }
    }
}
