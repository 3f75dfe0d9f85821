// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.posix;

import jnr.ffi.Pointer;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;
import jnr.ffi.types.size_t;
import jnr.ffi.types.ssize_t;

/**
 * The libc calls of the control server: the only file with C signatures. Unix sockets go through libc rather than
 * the JDK because the JDK's channels can neither pass descriptors (SCM_RIGHTS) nor report the peer's pid.
 */
public interface LibC {

    int socket(int domain, int type, int protocol);

    int bind(int fd, @In byte[] sockaddr, int len);

    int listen(int fd, int backlog);

    int accept4(int fd, Pointer addr, Pointer addrlen, int flags);

    int shutdown(int fd, int how);

    int close(int fd);

    int getsockopt(int fd, int level, int optname, @Out byte[] optval, @In @Out int[] optlen);

    int setsockopt(int fd, int level, int optname, @In byte[] optval, int optlen);

    @ssize_t long recvmsg(int fd, Pointer msghdr, int flags);

    @ssize_t long sendmsg(int fd, Pointer msghdr, int flags);

    @ssize_t long write(int fd, @In byte[] buf, @size_t long len);

    @ssize_t long read(int fd, @Out byte[] buf, @size_t long len);

    int eventfd(int initval, int flags);

    long syscall(long number, long a1, long a2);

    int poll(@In @Out byte[] fds, long nfds, int timeout);

    String strerror(int errnum);
}
