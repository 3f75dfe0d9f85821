// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.posix;

import io.rdmanode.posix.Errno;
import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * A listening Unix stream socket at a path, accepting connections with their peer credentials. Through libc (the
 * posix bundle) rather than the JDK, whose channels can neither pass descriptors (SCM_RIGHTS) nor report the
 * peer's pid.
 */
public final class UnixServer implements AutoCloseable {
    /** A connection reset before it was accepted: try the next one. */
    private static final int ECONNABORTED = 103;
    private final Posix posix;
    private final Path path;
    private final int fd;
    private volatile boolean closed;

    private UnixServer(Posix posix, Path path, int fd) {
        this.posix = posix;
        this.path = path;
        this.fd = fd;
    }

    /**
     * Binds path (a stale socket file left by a dead router is replaced) with the given mode and listens. The
     * genuine client connects as the container's user, so the mode is usually 0666; isolation comes from peer
     * credentials, not from the file mode.
     */
    public static UnixServer listen(Path path, String mode) throws IOException {
        Posix posix = Posix.libc();
        byte[] addr = address(path, "bind");
        Files.deleteIfExists(path);
        int fd;
        try {
            fd = posix.socket(Posix.AF_UNIX, Posix.SOCK_STREAM | Posix.SOCK_CLOEXEC, 0);
        } catch (PosixException e) {
            throw new IOException(e.getMessage(), e);
        }
        String step = "cannot bind " + path;
        try {
            posix.bind(fd, addr);
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(mode));
            step = "cannot listen on " + path;
            posix.listen(fd, 128);
            // Non-blocking: the control loop accepts every pending connection after poll says there is one.
            posix.fcntl(fd, Posix.F_SETFL, posix.fcntl(fd, Posix.F_GETFL, 0) | Posix.O_NONBLOCK);
        } catch (PosixException e) {
            posix.close(fd);
            throw new IOException(step + ": " + e.reason(), e);
        } catch (IOException e) {
            posix.close(fd);
            throw e;
        }
        return new UnixServer(posix, path, fd);
    }

    /** A {@code struct sockaddr_un} for path; {@code sun_path} holds 107 bytes and the terminating NUL. */
    static byte[] address(Path path, String use) throws IOException {
        byte[] p = path.toString().getBytes(StandardCharsets.UTF_8);
        if (p.length > 107) {
            throw new IOException("cannot " + use + " " + path + ": longer than 107 bytes");
        }
        byte[] addr = new byte[2 + p.length + 1];
        addr[0] = Posix.AF_UNIX;
        System.arraycopy(p, 0, addr, 2, p.length);
        return addr;
    }

    /**
     * A listening socket a predecessor handed over (already bound at path and listening; connections in its
     * backlog are this server's to accept): made non-blocking, close-on-exec is the receiver's already.
     */
    public static UnixServer adopt(Path path, int fd) throws IOException {
        Posix posix = Posix.libc();
        try {
            posix.fcntl(fd, Posix.F_SETFL, posix.fcntl(fd, Posix.F_GETFL, 0) | Posix.O_NONBLOCK);
        } catch (PosixException e) {
            posix.close(fd);
            throw new IOException("cannot adopt the listening socket of " + path + ": " + e.reason(), e);
        }
        return new UnixServer(posix, path, fd);
    }

    /**
     * A successor serves this socket now: closes this process's descriptor only. No shutdown(2), which would act
     * on the socket the successor accepts on, and no unlink: the path is the successor's. Later closes do nothing.
     */
    public void release() {
        if (!closed) {
            closed = true;
            posix.close(fd);
        }
    }

    public Path path() {
        return path;
    }

    /** The listening descriptor, for poll(2). */
    public int fd() {
        return fd;
    }

    /**
     * The next pending connection, or null when none is waiting (the socket is non-blocking); an IOException once
     * closed.
     */
    public UnixConnection accept() throws IOException {
        for (;;) {
            int c;
            try {
                c = posix.accept4(fd, Posix.SOCK_CLOEXEC);
            } catch (PosixException e) {
                if (closed) {
                    throw new IOException("server on " + path + " closed");
                }
                if (e.errno() == Errno.EINTR) {
                    continue;
                }
                if (e.errno() == Errno.EAGAIN || e.errno() == ECONNABORTED) {
                    return null;
                }
                throw new IOException("accept on " + path + ": " + e.reason(), e);
            }
            return UnixConnection.withPeer(posix, c, path.toString());
        }
    }

    @Override
    public void close() throws IOException {
        if (!closed) {
            closed = true;
            try {
                posix.shutdown(fd, Posix.SHUT_RDWR);
            } catch (PosixException notConnected) {
                // ENOTCONN on some kernels for a listening socket: the close below wakes accept anyway
            }
            posix.close(fd);
            Files.deleteIfExists(path);
        }
    }
}
