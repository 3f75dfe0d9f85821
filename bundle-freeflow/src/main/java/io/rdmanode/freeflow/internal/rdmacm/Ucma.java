// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.rdmacm;

import java.nio.ByteBuffer;

/**
 * The kernel calls of rdma_cm's user interface (UCMA, {@code drivers/infiniband/core/ucma.c}), one method per
 * call, like rdma-cni's ops: {@link KernelUcma} makes them, tests give a fake.
 */
interface Ucma {

    /** {@code open("/dev/infiniband/rdma_cm", O_RDWR | O_NONBLOCK | O_CLOEXEC)}: one file per event channel. */
    int open();

    /**
     * {@code write(fd, command, size)}: the UCMA command {@code command}, whose u64 at {@code pointerSlot} (when
     * >= 0) the call points at a buffer of its own holding {@code buffer}'s bytes, copied back into {@code buffer}
     * after the call (the kernel's response, or SET_OPTION's option value). Returns 0, or the kernel's errno.
     */
    int write(int fd, ByteBuffer command, int pointerSlot, ByteBuffer buffer);

    /** {@code poll} for POLLIN on each of {@code fds}: the revents, in order. */
    short[] poll(int[] fds, int timeoutMs);

    /** {@code eventfd(0, EFD_SEMAPHORE | EFD_NONBLOCK | EFD_CLOEXEC)}: the pollable descriptor a client gets. */
    int eventfd();

    /** {@code write(fd, &1, 8)} on an eventfd ({@code delta} 1) or {@code read} of one count (-1). */
    void count(int eventfd, int delta);

    void close(int fd);
}
