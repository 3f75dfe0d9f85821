// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import java.nio.file.Path;

/** File descriptors of network namespaces, as RDMA_NLDEV_NET_NS_FD and setns(2) take them. */
public interface NetnsFiles {

    /** open(path, O_RDONLY|O_CLOEXEC); a NetlinkException (ENOENT…) when impossible. */
    int open(Path netns);

    /** The calling thread's own namespace ({@code /proc/thread-self/ns/net}). */
    default int openOwn() {
        return open(Path.of("/proc/thread-self/ns/net"));
    }

    void close(int fd);
}
