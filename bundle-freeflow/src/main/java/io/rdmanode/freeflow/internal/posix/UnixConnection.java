// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.posix;

import io.rdmanode.posix.Errno;
import io.rdmanode.posix.PeerCredentials;
import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;
import io.rdmanode.posix.Received;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * One accepted client connection. Reads go through recvmsg with room for descriptors so that any fd a client
 * sends (wanted or not) is taken out of the kernel queue and closed, never leaked into the router. The descriptor
 * stays blocking (writes wait at most the send timeout, SO_SNDTIMEO); the control loop reads with MSG_DONTWAIT.
 * Not thread-safe: one connection is handled by one thread at a time (the loop or a worker, handed over).
 */
public final class UnixConnection implements AutoCloseable {
    private static final int BUF = 64 * 1024;
    private static final int MSG_PEEK = 2;
    private static final int SO_SNDTIMEO = 21;

    private final Posix posix;
    private final int fd;
    private final PeerCred peer;
    /**
     * The native scratch every read and write goes through, one per thread (the control loop and the bounded
     * workers), not one per connection: a 64 KiB direct buffer for each accepted connection made idle connections
     * cost direct memory, and 768 of them (6 processes at the per-process cap) used up the agent's 32 MiB. That
     * ended the control loop and failed gRPC and HTTP allocations everywhere else in the agent.
     */
    private static final ThreadLocal<ByteBuffer> SCRATCH = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(BUF));
    private boolean closed;

    UnixConnection(Posix posix, int fd, PeerCred peer) {
        this.posix = posix;
        this.fd = fd;
        this.peer = peer;
    }

    /** The connection on descriptor fd with its peer's credentials (SO_PEERCRED); fd is closed if they cannot be read. */
    static UnixConnection withPeer(Posix posix, int fd, String where) throws IOException {
        PeerCredentials peer;
        try {
            peer = posix.peerCredentials(fd);
        } catch (PosixException e) {
            posix.close(fd);
            throw new IOException("SO_PEERCRED on " + where + ": " + e.reason(), e);
        }
        return new UnixConnection(posix, fd, new PeerCred(peer.pid(), peer.uid(), peer.gid()));
    }

    /**
     * A connection another process accepted and passed here (SCM_RIGHTS): its peer is still the client that
     * connected, as the kernel recorded it then. Owns fd from now on.
     */
    public static UnixConnection adopt(int fd) throws IOException {
        return withPeer(Posix.libc(), fd, "a passed connection");
    }

    /** Connects to the Unix stream socket at path (blocking, close-on-exec). */
    public static UnixConnection connect(Path path) throws IOException {
        Posix posix = Posix.libc();
        byte[] addr = UnixServer.address(path, "connect to");
        int fd;
        try {
            fd = posix.socket(Posix.AF_UNIX, Posix.SOCK_STREAM | Posix.SOCK_CLOEXEC, 0);
        } catch (PosixException e) {
            throw new IOException(e.getMessage(), e);
        }
        try {
            posix.connect(fd, addr);
        } catch (PosixException e) {
            posix.close(fd);
            throw new IOException("cannot connect to " + path + ": " + e.reason(), e);
        }
        return withPeer(posix, fd, path.toString());
    }

    public PeerCred peer() {
        return peer;
    }

    public int fd() {
        return fd;
    }

    /**
     * Reads what is there now into b (up to its remaining room) without waiting: the bytes read, -1 when nothing
     * was waiting; end of stream is an EOFException.
     */
    public int readNow(ByteBuffer b) throws IOException {
        int got = recv(Math.min(b.remaining(), BUF), Posix.MSG_DONTWAIT);
        if (got == 0 && b.hasRemaining()) {
            throw new EOFException("client pid " + peer.pid() + " closed the connection");
        }
        if (got > 0) {
            b.put(SCRATCH.get().flip());
        }
        return got;
    }

    /**
     * Copies up to b's remaining bytes that are waiting, without taking them from the socket (MSG_PEEK): a
     * connection closed with unread bytes resets the client's side (ECONNRESET on its read), a clean error where an
     * end of stream would leave a client spinning. Returns how many bytes were there (0 when none, or at EOF).
     */
    public int peek(ByteBuffer b) throws IOException {
        int got = recv(Math.min(b.remaining(), BUF), Posix.MSG_DONTWAIT | MSG_PEEK);
        if (got > 0) {
            b.put(SCRATCH.get().flip());
        }
        return Math.max(got, 0);
    }

    /** Bounds every write: a client that stops reading fails the write after this long instead of holding a thread. */
    public void sendTimeout(long millis) {
        ByteBuffer tv = ByteBuffer.allocate(16).order(java.nio.ByteOrder.nativeOrder());
        tv.putLong(0, millis / 1000).putLong(8, (millis % 1000) * 1000);
        posix.setsockopt(fd, Posix.SOL_SOCKET, SO_SNDTIMEO, tv.array());
    }

    /** Reads exactly {@code b.remaining()} bytes into b (from its position); EOF before that is an EOFException. */
    public void readFully(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            int got = recv(Math.min(b.remaining(), BUF), 0);
            if (got == 0) {
                throw new EOFException("client pid " + peer.pid() + " closed the connection");
            }
            b.put(SCRATCH.get().flip());
        }
    }

    /** Reads and drops n bytes (the body of a request refused before reading it). */
    public void skip(long n) throws IOException {
        while (n > 0) {
            int got = recv((int) Math.min(n, BUF), 0);
            if (got == 0) {
                throw new EOFException("client pid " + peer.pid() + " closed the connection");
            }
            n -= got;
        }
    }

    /**
     * Up to n bytes into this thread's {@link #SCRATCH} (cleared first); descriptors that came with them are
     * closed. -1 when flags ask not to wait and nothing is there.
     */
    private int recv(int n, int flags) throws IOException {
        ByteBuffer data = SCRATCH.get();
        for (;;) {
            data.clear().limit(n);
            Received r;
            try {
                r = posix.recvmsg(fd, data, flags);
            } catch (PosixException e) {
                if (e.errno() == Errno.EINTR) {
                    continue;
                }
                if (e.errno() == Errno.EAGAIN && (flags & Posix.MSG_DONTWAIT) != 0) {
                    return -1;
                }
                throw new IOException("recvmsg from pid " + peer.pid() + ": " + e.reason(), e);
            }
            // Phase 1 has no call that needs a client's fd: none is kept.
            for (int received : r.fds()) {
                posix.close(received);
            }
            return (int) r.bytes();
        }
    }

    public void write(ByteBuffer b) throws IOException {
        ByteBuffer data = SCRATCH.get();
        while (b.hasRemaining()) {
            int n = Math.min(b.remaining(), BUF);
            data.clear();
            data.put(b.slice(b.position(), n)).flip();
            b.position(b.position() + (int) sendmsg(data, -1));
        }
    }

    /**
     * Sends one descriptor with the protocol's 2-byte dummy payload (freeflow.md §2.2); a negative {@code passFd}
     * sends the payload alone (a refused fd-first call: the client's recvmsg then reports no descriptor).
     */
    public void sendFd(int passFd) throws IOException {
        ByteBuffer data = SCRATCH.get();
        data.clear();
        data.put((byte) 'f').put((byte) 'd').flip();
        if (sendmsg(data, passFd) != 2) {
            throw new IOException("short fd message to pid " + peer.pid());
        }
    }

    /** Sends data's remaining bytes once (a short send is the caller's to continue). */
    private long sendmsg(ByteBuffer data, int passFd) throws IOException {
        for (;;) {
            try {
                return posix.sendmsg(fd, data, passFd, Posix.MSG_NOSIGNAL);
            } catch (PosixException e) {
                if (e.errno() == Errno.EINTR) {
                    continue;
                }
                throw new IOException("sendmsg to pid " + peer.pid() + ": " + e.reason(), e);
            }
        }
    }

    /** Wakes a worker blocked in a read on this connection (shutdown), without releasing the fd number yet. */
    public void shutdown() {
        try {
            posix.shutdown(fd, Posix.SHUT_RDWR);
        } catch (PosixException alreadyGone) {
            // ENOTCONN: the client has gone, nothing blocks on it
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            posix.close(fd);
        }
    }
}
