// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs.internal;

import jnr.ffi.Pointer;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;
import jnr.ffi.types.size_t;
import jnr.ffi.types.ssize_t;

/** The libc calls the async-event thread needs (poll(2), fcntl(2), pipe(2)); Linux values below. */
public interface LibC {

    int F_GETFL = 3;
    int F_SETFL = 4;
    /** 04000 on x86-64 and aarch64 alike (asm-generic/fcntl.h). */
    int O_NONBLOCK = 0x800;
    int O_CLOEXEC = 0x80000;
    short POLLIN = 0x1;
    int EINTR = 4;
    int EAGAIN = 11;

    /** {@code int poll(struct pollfd *fds, nfds_t nfds, int timeout)}; {@code struct pollfd} is 8 bytes. */
    int poll(Pointer fds, long nfds, int timeoutMs);

    /** The two-int form of the variadic {@code fcntl}: same calling convention on x86-64 and aarch64 Linux. */
    int fcntl(int fd, int cmd, int arg);

    int pipe2(@Out int[] fds, int flags);

    @ssize_t long read(int fd, @Out byte[] buf, @size_t long len);

    @ssize_t long write(int fd, @In byte[] buf, @size_t long len);

    int close(int fd);

    String strerror(int errnum);
}
