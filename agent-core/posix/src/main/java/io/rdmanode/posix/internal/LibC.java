// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.posix.internal;

import jnr.ffi.Pointer;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;
import jnr.ffi.types.size_t;
import jnr.ffi.types.ssize_t;

/**
 * libc's C signatures, the agent's only binding of them (jnr-ffi generates the implementation). Public because
 * jnr defines that implementation in a class loader of its own; nothing outside this package uses it.
 */
public interface LibC {

    int socket(int domain, int type, int protocol);

    int bind(int fd, @In byte[] sockaddr, int len);

    int listen(int fd, int backlog);

    int connect(int fd, @In byte[] sockaddr, int len);

    int flock(int fd, int operation);

    int accept4(int fd, Pointer addr, Pointer addrlen, int flags);

    int shutdown(int fd, int how);

    int getsockopt(int fd, int level, int optname, @Out byte[] optval, @In @Out int[] optlen);

    int setsockopt(int fd, int level, int optname, @In byte[] optval, int optlen);

    @ssize_t long send(int fd, @In byte[] buf, @size_t long len, int flags);

    @ssize_t long recv(int fd, @Out byte[] buf, @size_t long len, int flags);

    @ssize_t long sendmsg(int fd, Pointer msghdr, int flags);

    @ssize_t long recvmsg(int fd, Pointer msghdr, int flags);

    @ssize_t long read(int fd, @Out byte[] buf, @size_t long len);

    @ssize_t long write(int fd, @In byte[] buf, @size_t long len);

    int open(String path, int flags);

    int openat(int dirfd, @In byte[] path, int flags);

    int close(int fd);

    /** The two-int form of the variadic {@code fcntl}: same calling convention on x86-64 and aarch64 Linux. */
    int fcntl(int fd, int cmd, int arg);

    int dup3(int oldfd, int newfd, int flags);

    int pipe2(@Out int[] fds, int flags);

    int eventfd(int initval, int flags);

    int poll(@In @Out byte[] fds, long nfds, int timeout);

    int setns(int fd, int nstype);

    int unshare(int flags);

    int mount(String source, String target, String fstype, long flags, Pointer data);

    /** Variadic in C; called with all five arguments, which is the same convention on x86-64 and aarch64. */
    int prctl(int option, long arg2, long arg3, long arg4, long arg5);

    long syscall(long number, long a1, long a2);

    /** The same symbol with four arguments, for calls that take them (the registers past them are not garbage). */
    long syscall(long number, long a1, long a2, long a3, long a4);

    String strerror(int errnum);
}
