// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;
import java.nio.file.Path;

/** open(2)/close(2) through libc: a netns fd must be a real descriptor of this process for the kernel. */
final class NativeNetnsFiles implements NetnsFiles {

    static final NativeNetnsFiles INSTANCE = new NativeNetnsFiles();

    @Override
    public int open(Path netns) {
        try {
            return Posix.libc().open(netns.toString(), Posix.O_RDONLY | Posix.O_CLOEXEC);
        } catch (PosixException e) {
            throw fail("open(" + netns + ")", e);
        }
    }

    @Override
    public void close(int fd) {
        Posix.libc().close(fd);
    }

    /** The bundle's exception for a failed libc call: {@code what: No such file or directory (ENOENT)}, errno kept. */
    static NetlinkException fail(String what, PosixException e) {
        return new NetlinkException(what + ": " + e.reason(), e.errno());
    }
}
