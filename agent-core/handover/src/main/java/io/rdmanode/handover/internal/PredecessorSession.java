// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.handover.internal;

import io.rdmanode.posix.Errno;
import io.rdmanode.posix.FdLines;
import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The successor's side: a connection to a running predecessor's {@code handover.sock} ({@link Protocol}). Calls
 * are serialized (one request, one answer); a predecessor that does not answer within the timeout is an error.
 */
final class PredecessorSession implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PredecessorSession.class);

    private final Posix posix;
    private final int fd;
    private final FdLines lines;
    private final long pid;
    private final Map<String, String> doors;

    private PredecessorSession(Posix posix, int fd, long pid, Map<String, String> doors) {
        this.posix = posix;
        this.fd = fd;
        this.lines = new FdLines(posix, fd);
        this.pid = pid;
        this.doors = doors;
    }

    /**
     * Connects to the predecessor listening on {@code path}: empty when there is none (no file) or it is dead
     * (a stale socket file: nobody listens, ECONNREFUSED), so a first start and a start after a crash are alike.
     * {@code readyPromiseMillis}: this instance says READY within that long (its ready timeout's timer).
     */
    static Optional<PredecessorSession> connect(Posix posix, Path path, long timeoutMillis, long readyPromiseMillis)
            throws IOException {
        int fd = posix.socket(Posix.AF_UNIX, Posix.SOCK_STREAM | Posix.SOCK_CLOEXEC, 0);
        try {
            posix.connect(fd, UnixAddress.of(path));
        } catch (PosixException e) {
            posix.close(fd);
            if (e.errno() == Errno.ENOENT || e.errno() == Errno.ECONNREFUSED) {
                if (e.errno() == Errno.ECONNREFUSED) {
                    LOG.info("handover socket {} is stale (nobody listens): no predecessor to take over from", path);
                }
                return Optional.empty();
            }
            throw new IOException("cannot connect to the predecessor at " + path + ": " + e.reason(), e);
        }
        try {
            Protocol.receiveTimeout(posix, fd, timeoutMillis);
            FdLines lines = new FdLines(posix, fd);
            lines.send(Protocol.HELLO + "\t" + Protocol.VERSION + "\t" + ProcessHandle.current().pid());
            String[] hello = lines.read().fields();
            if (hello.length != 3 || !hello[0].equals(Protocol.HELLO) || !hello[1].equals(Protocol.VERSION)) {
                throw new IOException("the predecessor at " + path + " speaks another protocol: " + String.join(" ", hello));
            }
            lines.send(Protocol.DOORS);
            String[] offered = lines.read().fields();
            Map<String, String> doors = new LinkedHashMap<>();
            for (int i = 1; i + 1 < offered.length; i += 2) {
                doors.put(offered[i], offered[i + 1]);
            }
            lines.send(Protocol.SUCCESSOR + "\t" + readyPromiseMillis);
            lines.read();                                  // SUCCESSOR, or NONE from an older predecessor: the same
            return Optional.of(new PredecessorSession(posix, fd, Long.parseLong(hello[2]), doors));
        } catch (IOException | RuntimeException e) {
            posix.close(fd);
            throw new IOException("handover with the predecessor at " + path + " failed: " + e.getMessage(), e);
        }
    }

    long pid() {
        return pid;
    }

    /** The doors the predecessor offered when this session began, by name, with their addresses. */
    Map<String, String> doors() {
        return doors;
    }

    /** The predecessor's listening descriptor for the door, now this process's; empty when it has none there. */
    synchronized OptionalInt take(String name, String address) throws IOException {
        lines.send(Protocol.TAKE + "\t" + name + "\t" + address);
        FdLines.Line answer = lines.read();
        int[] fds = answer.fds();
        if (answer.text().equals(Protocol.FD) && fds.length == 1) {
            return OptionalInt.of(fds[0]);
        }
        for (int extra : fds) {
            posix.close(extra);
        }
        LOG.info("door {} at {} not taken from predecessor pid={}: {}", name, address, pid, answer.text());
        return OptionalInt.empty();
    }

    /**
     * True once the predecessor has ended the session (it stopped, or died) before this instance said READY. It
     * never writes unasked, so between requests a non-blocking peek finds either nothing (it is there) or the end
     * of the stream.
     */
    synchronized boolean predecessorGone() {
        return Protocol.peerClosed(posix, fd);
    }

    /** Tells the predecessor this process serves; returns once it has handed over and released the writer lock. */
    synchronized void ready() throws IOException {
        lines.send(Protocol.READY);
        String answer = lines.read().text();
        if (!answer.equals(Protocol.RELEASED)) {
            throw new IOException("the predecessor pid=" + pid + " answered READY with " + answer);
        }
    }

    @Override
    public synchronized void close() {
        posix.close(fd);
    }
}
