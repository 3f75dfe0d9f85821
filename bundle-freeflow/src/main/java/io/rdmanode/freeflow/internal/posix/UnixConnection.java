// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.posix;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;

/**
 * One accepted client connection. Reads go through recvmsg with room for descriptors so that any fd a client
 * sends (wanted or not) is taken out of the kernel queue and closed, never leaked into the router. Not thread-safe:
 * one connection belongs to one worker.
 */
public final class UnixConnection implements AutoCloseable {
    private static final int BUF = 64 * 1024;
    private static final int MSGHDR = 56;
    private static final int CMSG_SPACE = 24;

    private final Posix posix;
    private final int fd;
    private final PeerCred peer;
    private final Pointer msg;
    private final Pointer iov;
    private final Pointer control;
    private final Pointer data;
    private final byte[] chunk = new byte[BUF];
    private int receivedFd = -1;
    private boolean closed;

    UnixConnection(Posix posix, int fd, PeerCred peer) {
        this.posix = posix;
        this.fd = fd;
        this.peer = peer;
        this.msg = Memory.allocateDirect(posix.runtime(), MSGHDR, true);
        this.iov = Memory.allocateDirect(posix.runtime(), 16, true);
        this.control = Memory.allocateDirect(posix.runtime(), CMSG_SPACE * 4, true);
        this.data = Memory.allocateDirect(posix.runtime(), BUF, true);
    }

    public PeerCred peer() {
        return peer;
    }

    public int fd() {
        return fd;
    }

    /** Reads exactly {@code b.remaining()} bytes into b (from its position); EOF before that is an EOFException. */
    public void readFully(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            int n = (int) Math.min(b.remaining(), BUF);
            long got = recv(n);
            if (got == 0) {
                throw new EOFException("client pid " + peer.pid() + " closed the connection");
            }
            data.get(0, chunk, 0, (int) got);
            b.put(chunk, 0, (int) got);
        }
    }

    /** Reads and drops n bytes (the body of a request refused before reading it). */
    public void skip(long n) throws IOException {
        while (n > 0) {
            long got = recv((int) Math.min(n, BUF));
            if (got == 0) {
                throw new EOFException("client pid " + peer.pid() + " closed the connection");
            }
            n -= got;
        }
    }

    private long recv(int n) throws IOException {
        for (;;) {
            msg.setMemory(0, MSGHDR, (byte) 0);
            iov.putAddress(0, data.address());
            iov.putLong(8, n);
            msg.putAddress(16, iov.address());
            msg.putLong(24, 1);
            msg.putAddress(32, control.address());
            msg.putLong(40, CMSG_SPACE * 4);
            long got = posix.libc().recvmsg(fd, msg, 0);
            if (got < 0) {
                if (posix.errno() == Posix.EINTR) {
                    continue;
                }
                throw posix.error("recvmsg from pid " + peer.pid());
            }
            takeDescriptors();
            return got;
        }
    }

    /** Descriptors that came with the data: none is kept (phase 1 has no call that needs a client's fd). */
    private void takeDescriptors() {
        long controllen = msg.getLong(40);
        long at = 0;
        while (at + 16 <= controllen) {
            long len = control.getLong(at);
            if (len < 16) {
                break;
            }
            if (control.getInt(at + 8) == Posix.SOL_SOCKET && control.getInt(at + 12) == Posix.SCM_RIGHTS) {
                for (long p = at + 16; p + 4 <= at + len; p += 4) {
                    int got = control.getInt(p);
                    posix.close(receivedFd);
                    receivedFd = got;
                }
            }
            at += (len + 7) & ~7L;
        }
        posix.close(receivedFd);
        receivedFd = -1;
    }

    public void write(ByteBuffer b) throws IOException {
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        int off = 0;
        while (off < bytes.length) {
            int n = Math.min(bytes.length - off, BUF);
            data.put(0, bytes, off, n);
            long sent = sendmsg(n, -1);
            off += (int) sent;
        }
    }

    /**
     * Sends one descriptor with the protocol's 2-byte dummy payload (freeflow.md §2.2); a negative {@code passFd}
     * sends the payload alone (a refused fd-first call: the client's recvmsg then reports no descriptor).
     */
    public void sendFd(int passFd) throws IOException {
        data.put(0, new byte[] {'f', 'd'}, 0, 2);
        long sent = sendmsg(2, passFd);
        if (sent != 2) {
            throw new IOException("short fd message to pid " + peer.pid());
        }
    }

    private long sendmsg(int n, int passFd) throws IOException {
        for (;;) {
            msg.setMemory(0, MSGHDR, (byte) 0);
            iov.putAddress(0, data.address());
            iov.putLong(8, n);
            msg.putAddress(16, iov.address());
            msg.putLong(24, 1);
            if (passFd >= 0) {
                control.setMemory(0, CMSG_SPACE, (byte) 0);
                control.putLong(0, 20);
                control.putInt(8, Posix.SOL_SOCKET);
                control.putInt(12, Posix.SCM_RIGHTS);
                control.putInt(16, passFd);
                msg.putAddress(32, control.address());
                msg.putLong(40, CMSG_SPACE);
            }
            long sent = posix.libc().sendmsg(fd, msg, Posix.MSG_NOSIGNAL);
            if (sent < 0) {
                if (posix.errno() == Posix.EINTR) {
                    continue;
                }
                throw posix.error("sendmsg to pid " + peer.pid());
            }
            return sent;
        }
    }

    /** Wakes a worker blocked in a read on this connection (shutdown), without releasing the fd number yet. */
    public void shutdown() {
        posix.libc().shutdown(fd, Posix.SHUT_RDWR);
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            posix.close(fd);
        }
    }
}
