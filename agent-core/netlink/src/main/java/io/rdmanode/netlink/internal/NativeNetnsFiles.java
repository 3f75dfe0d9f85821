// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import java.nio.file.Path;

/** open(2)/close(2) through libc: a netns fd must be a real descriptor of this process for the kernel. */
final class NativeNetnsFiles implements NetnsFiles {

    static final NativeNetnsFiles INSTANCE = new NativeNetnsFiles();
    private static final int O_RDONLY = 0;
    private static final int O_CLOEXEC = 02000000;

    @Override
    public int open(Path netns) {
        int fd = Native.libc().open(netns.toString(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            throw Native.fail("open(" + netns + ")");
        }
        return fd;
    }

    @Override
    public void close(int fd) {
        Native.libc().close(fd);
    }
}
