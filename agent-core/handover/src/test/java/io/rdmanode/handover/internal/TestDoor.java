// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.handover.internal;

import io.rdmanode.agent.Handover;
import io.rdmanode.posix.Posix;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/** A listening Unix socket that never accepts by itself, as a door: handedOver closes its own descriptor. */
final class TestDoor implements Handover.Door {

    private static final Posix POSIX = Posix.libc();
    final AtomicInteger handedOver = new AtomicInteger();
    final AtomicInteger takenBack = new AtomicInteger();
    /** Whether {@link #takeBack} accepts the socket again (a door that cannot says no). */
    volatile boolean canTakeBack = true;
    private volatile int fd;

    private TestDoor(int fd) {
        this.fd = fd;
    }

    static TestDoor listen(Path path) throws IOException {
        int fd = POSIX.socket(Posix.AF_UNIX, Posix.SOCK_STREAM | Posix.SOCK_CLOEXEC, 0);
        POSIX.bind(fd, UnixAddress.of(path));
        POSIX.listen(fd, 16);
        return new TestDoor(fd);
    }

    static TestDoor adopt(int fd) {
        return new TestDoor(fd);
    }

    @Override
    public int fd() {
        return fd;
    }

    @Override
    public void handedOver() {
        handedOver.incrementAndGet();
        closeOwn();
    }

    @Override
    public boolean takeBack(int descriptor) {
        if (!canTakeBack) {
            POSIX.close(descriptor);
            return false;
        }
        takenBack.incrementAndGet();
        fd = descriptor;
        return true;
    }

    void closeOwn() {
        POSIX.close(fd);
        fd = -1;
    }
}
