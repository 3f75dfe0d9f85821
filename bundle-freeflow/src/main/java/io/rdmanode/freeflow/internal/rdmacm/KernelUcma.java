// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.rdmacm;

import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;
import java.nio.ByteBuffer;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;

/**
 * {@link Ucma} on the kernel, through the posix bundle's libc. A command's pointer goes to native memory of the
 * router's (jnr-ffi), never to anything the client named.
 */
final class KernelUcma implements Ucma {
    static final String DEVICE = "/dev/infiniband/rdma_cm";
    /** O_RDWR (the posix bundle names only O_RDONLY). */
    private static final int O_RDWR = 2;
    private final Posix posix = Posix.libc();

    @Override
    public int open() {
        return posix.open(DEVICE, O_RDWR | Posix.O_NONBLOCK | Posix.O_CLOEXEC);
    }

    @Override
    public int write(int fd, ByteBuffer command, int pointerSlot, ByteBuffer buffer) {
        byte[] cmd = new byte[command.capacity()];
        command.get(0, cmd);
        Pointer p = null;
        if (pointerSlot >= 0 && buffer != null && buffer.capacity() > 0) {
            p = Memory.allocateDirect(Runtime.getSystemRuntime(), buffer.capacity(), true);
            byte[] in = new byte[buffer.capacity()];
            buffer.get(0, in);
            p.put(0, in, 0, in.length);
            ByteBuffer c = ByteBuffer.wrap(cmd).order(command.order());
            c.putLong(pointerSlot, p.address());
        }
        try {
            posix.write(fd, cmd, cmd.length);
        } catch (PosixException e) {
            return e.errno();
        }
        if (p != null) {
            byte[] outBytes = new byte[buffer.capacity()];
            p.get(0, outBytes, 0, outBytes.length);
            buffer.put(0, outBytes);
        }
        return 0;
    }

    @Override
    public short[] poll(int[] fds, int timeoutMs) {
        return posix.poll(fds, Posix.POLLIN, timeoutMs);
    }

    @Override
    public int eventfd() {
        return posix.eventfd(0, Posix.EFD_CLOEXEC | Posix.EFD_NONBLOCK | Posix.EFD_SEMAPHORE);
    }

    @Override
    public void count(int eventfd, int delta) {
        byte[] eight = new byte[8];
        try {
            if (delta > 0) {
                eight[0] = 1;
                posix.write(eventfd, eight, 8);
            } else {
                posix.read(eventfd, eight, 8);
            }
        } catch (PosixException e) {
            // EAGAIN: the count was already 0 (or at its maximum): nothing to take, nothing lost that matters
        }
    }

    @Override
    public void close(int fd) {
        try {
            posix.close(fd);
        } catch (PosixException e) {
            // closing is best effort: the descriptor is gone either way
        }
    }
}
