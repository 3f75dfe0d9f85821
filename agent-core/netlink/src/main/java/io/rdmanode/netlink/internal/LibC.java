// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;
import jnr.ffi.types.size_t;
import jnr.ffi.types.ssize_t;

/** The libc calls this bundle needs: the only file with C signatures (socket(2), bind(2), open(2), setns(2), unshare(2), mount(2), …). */
public interface LibC {

    int socket(int domain, int type, int protocol);

    int bind(int fd, @In byte[] sockaddr, int len);

    int setsockopt(int fd, int level, int optname, @In byte[] optval, int optlen);

    @ssize_t long send(int fd, @In byte[] buf, @size_t long len, int flags);

    @ssize_t long recv(int fd, @Out byte[] buf, @size_t long len, int flags);

    int open(String path, int flags);

    int setns(int fd, int nstype);

    int unshare(int flags);

    int mount(String source, String target, String fstype, long flags, jnr.ffi.Pointer data);

    int close(int fd);

    String strerror(int errnum);
}
