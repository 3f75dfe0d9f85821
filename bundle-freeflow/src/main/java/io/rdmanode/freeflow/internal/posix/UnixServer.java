// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.posix;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** A listening Unix stream socket at a path, accepting connections with their peer credentials. */
public final class UnixServer implements AutoCloseable {
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
        Posix posix = Posix.get();
        byte[] p = path.toString().getBytes(StandardCharsets.UTF_8);
        if (p.length > 107) {
            throw new IOException("cannot bind " + path + ": longer than 107 bytes");
        }
        Files.deleteIfExists(path);
        int fd = posix.libc().socket(Posix.AF_UNIX, Posix.SOCK_STREAM | Posix.SOCK_CLOEXEC, 0);
        if (fd < 0) {
            throw posix.error("socket(AF_UNIX)");
        }
        byte[] addr = new byte[110];
        addr[0] = Posix.AF_UNIX;
        System.arraycopy(p, 0, addr, 2, p.length);
        if (posix.libc().bind(fd, addr, 2 + p.length + 1) != 0) {
            IOException e = posix.error("cannot bind " + path);
            posix.close(fd);
            throw e;
        }
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(mode));
        if (posix.libc().listen(fd, 128) != 0) {
            IOException e = posix.error("cannot listen on " + path);
            posix.close(fd);
            throw e;
        }
        return new UnixServer(posix, path, fd);
    }

    public Path path() {
        return path;
    }

    /** Blocks for the next connection; an IOException once closed. */
    public UnixConnection accept() throws IOException {
        for (;;) {
            int c = posix.libc().accept4(fd, null, null, Posix.SOCK_CLOEXEC);
            if (c < 0) {
                if (closed) {
                    throw new IOException("server on " + path + " closed");
                }
                if (posix.errno() == Posix.EINTR) {
                    continue;
                }
                throw posix.error("accept on " + path);
            }
            byte[] cred = new byte[12];
            int[] len = {12};
            if (posix.libc().getsockopt(c, Posix.SOL_SOCKET, Posix.SO_PEERCRED, cred, len) != 0) {
                IOException e = posix.error("SO_PEERCRED on " + path);
                posix.close(c);
                throw e;
            }
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(cred).order(java.nio.ByteOrder.nativeOrder());
            return new UnixConnection(posix, c, new PeerCred(b.getInt(0), b.getInt(4), b.getInt(8)));
        }
    }

    @Override
    public void close() throws IOException {
        if (!closed) {
            closed = true;
            posix.libc().shutdown(fd, Posix.SHUT_RDWR);
            posix.close(fd);
            Files.deleteIfExists(path);
        }
    }
}
