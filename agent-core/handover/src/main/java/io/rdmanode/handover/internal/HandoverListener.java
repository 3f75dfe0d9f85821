// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.handover.internal;

import io.rdmanode.posix.Errno;
import io.rdmanode.posix.FdLines;
import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The predecessor's side: listens on {@code <stateDir>/handover.sock} (0600) for a successor and answers its
 * requests ({@link Protocol}), each session on a thread of its own (a successor, or the launcher's brief check).
 * On close the socket file is removed only while it is still this listener's (same inode): a successor binds its
 * own at the same path before this process stops.
 */
final class HandoverListener implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HandoverListener.class);
    private static final AtomicInteger SESSIONS = new AtomicInteger();

    /** What the listener asks of this process. */
    interface Doors {

        /** The doors offered now, as DOORS fields: name, address, name, address... */
        String[] offered();

        /** A duplicate of the door's descriptor after the door stopped accepting, or a reason why not. */
        Taken handOver(Object session, String name, String address);

        /** The successor serves every door it took: hand the state directory over. */
        void successorReady(Object session);

        /**
         * The session is over, with or without READY (a successor that died while it started).
         *
         * @param peerPid the process at the other end ({@code SO_PEERCRED}), or -1 when unknown
         * @param successor whether the peer said it takes over (SUCCESSOR) or took a door: not one that only
         *     looked ({@code status}, the launcher's check)
         */
        void sessionEnded(Object session, int peerPid, boolean successor);
    }

    /** Either {@code fd} (owned by the caller) or {@code reason}. */
    record Taken(int fd, String reason) {
    }

    private final Posix posix;
    private final Path path;
    private final int fd;
    private final Object inode;
    private final Doors doors;
    private final Thread thread;
    private final java.util.concurrent.Semaphore sessions = new java.util.concurrent.Semaphore(MAX_SESSIONS);
    private volatile boolean running = true;
    /**
     * The sessions served now, by descriptor: a stopping listener ends them all (the successor sees it), and a
     * connection that finds every slot taken ends the oldest one that has not said anything yet.
     */
    private final java.util.Map<Integer, Session> open = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Sessions served at once: one successor, the launcher's pre-start check of another, and room for a retry. The
     * socket is 0600 in the state directory, but a stuck or looping client must still not add threads without end.
     */
    static final int MAX_SESSIONS = 4;
    /**
     * A session silent this long ends (its lent doors stay listening for the next instance): longer than the
     * largest {@code readyTimeout} (600 s) a legitimate successor may stay quiet for before its READY.
     */
    static final long SESSION_IDLE_MILLIS = 660_000;
    /**
     * A connection that sends no request this long ends: a successor, like the launcher's check, says HELLO the
     * moment it connects. Without this, four idle connections held every slot for {@link #SESSION_IDLE_MILLIS}
     * and every successor in that time started without taking over (an operator probe).
     */
    static final long FIRST_REQUEST_MILLIS = 5_000;
    /**
     * How long past the READY it promised (SUCCESSOR with its ready timeout) a successor may stay silent before it
     * counts as stuck and is killed. Its own timer sends READY when its ready timeout ends, whatever it serves by
     * then, so silence past that means the process no longer runs its code (SIGSTOPped, wedged): meanwhile it holds
     * the doors lent to it, unserved, and kubelet's endpoints are its own.
     */
    static final long READY_GRACE_MILLIS = 10_000;
    /** The longest READY promise taken as given: the largest {@code readyTimeout} a configuration may set. */
    static final long MAX_READY_PROMISE_MILLIS = 600_000;
    /** How long a new connection waits for the slot of a silent session it ended to come free. */
    private static final long SLOT_WAIT_MILLIS = 1_000;

    /** A served connection: when it was accepted, whether it has sent a request yet, and whether it takes over. */
    private static final class Session {
        final long acceptedNanos = System.nanoTime();
        volatile boolean spoke;
        volatile boolean successor;
        /** The READY the successor promised, in ms from its SUCCESSOR; -1 when it promised none (older build). */
        long readyPromiseMillis = -1;
        boolean ready;
        /** The successor's process (a pidfd), to stop it should it break its promise; -1 when it cannot be. */
        int pidfd = -1;
    }

    private HandoverListener(Posix posix, Path path, int fd, Doors doors) throws IOException {
        this.posix = posix;
        this.path = path;
        this.fd = fd;
        this.inode = Files.getAttribute(path, "unix:ino");
        this.doors = doors;
        this.thread = new Thread(this::acceptLoop, "rdma-agent-handover-listener");
        thread.setDaemon(true);
    }

    /** Binds {@code path} (an existing file is replaced: a dead predecessor's, or one a session is connected to). */
    static HandoverListener listen(Posix posix, Path path, Doors doors) throws IOException {
        Files.deleteIfExists(path);
        int fd = posix.socket(Posix.AF_UNIX, Posix.SOCK_STREAM | Posix.SOCK_CLOEXEC, 0);
        try {
            posix.bind(fd, UnixAddress.of(path));
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
            posix.listen(fd, 4);
            HandoverListener listener = new HandoverListener(posix, path, fd, doors);
            listener.thread.start();
            return listener;
        } catch (PosixException | IOException e) {
            posix.close(fd);
            throw new IOException("cannot listen on " + path + ": " + e.getMessage(), e);
        }
    }

    private void acceptLoop() {
        while (running) {
            try {
                if (posix.poll(new int[] {fd}, Posix.POLLIN, 250)[0] == 0) {
                    continue;
                }
                int session = posix.accept4(fd, Posix.SOCK_CLOEXEC);
                if (!sessions.tryAcquire() && !(endOldestSilentSession()
                        && sessions.tryAcquire(SLOT_WAIT_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS))) {
                    LOG.warn("handover socket {}: {} sessions open already, each past its first request; a new"
                            + " one is closed at once", path, MAX_SESSIONS);
                    posix.close(session);
                    continue;
                }
                // Known before its thread runs: the next connection may need its slot at once.
                Session state = new Session();
                open.put(session, state);
                Thread t = new Thread(() -> {
                    try {
                        serve(session, state);
                    } finally {
                        sessions.release();
                    }
                }, "rdma-agent-handover-session-" + SESSIONS.incrementAndGet());
                t.setDaemon(true);
                t.start();
            } catch (PosixException e) {
                if (running && e.errno() != Errno.EINTR && e.errno() != Errno.EAGAIN) {
                    LOG.warn("handover socket {}: accept failed: {}", path, e.getMessage());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Every slot is taken: ends the session accepted longest ago that has sent nothing yet (a successor never is
     * one for more than a moment), so a newcomer is served; false when every session has spoken.
     */
    private boolean endOldestSilentSession() {
        java.util.Map.Entry<Integer, Session> oldest = null;
        for (java.util.Map.Entry<Integer, Session> entry : open.entrySet()) {
            if (!entry.getValue().spoke && (oldest == null
                    || entry.getValue().acceptedNanos - oldest.getValue().acceptedNanos < 0)) {
                oldest = entry;
            }
        }
        if (oldest == null) {
            return false;
        }
        LOG.info("handover socket {}: every slot taken; ending a connection that has sent nothing for {} ms", path,
                (System.nanoTime() - oldest.getValue().acceptedNanos) / 1_000_000);
        try {
            posix.shutdown(oldest.getKey(), Posix.SHUT_RDWR);
        } catch (RuntimeException gone) {
            // ended meanwhile: its slot comes free all the same
        }
        return true;
    }

    private void serve(int session, Session state) {
        Object id = new Object();
        int peer = peerPid(session);
        FdLines lines = new FdLines(posix, session);
        try {
            Protocol.receiveTimeout(posix, session, FIRST_REQUEST_MILLIS);
            for (;;) {
                String[] request = lines.read().fields();
                if (!state.spoke) {
                    state.spoke = true;
                    Protocol.receiveTimeout(posix, session, SESSION_IDLE_MILLIS);
                }
                switch (request[0]) {
                    case Protocol.HELLO -> lines.send(Protocol.HELLO + "\t" + Protocol.VERSION + "\t"
                            + ProcessHandle.current().pid());
                    case Protocol.DOORS -> lines.send(String.join("\t", prepend(Protocol.DOORS, doors.offered())));
                    case Protocol.SUCCESSOR -> {
                        state.successor = true;
                        promiseReady(session, state, peer, request);
                        lines.send(Protocol.SUCCESSOR);
                    }
                    case Protocol.TAKE -> {
                        state.successor = true;
                        take(id, lines, request);
                    }
                    case Protocol.READY -> {
                        state.ready = true;
                        Protocol.receiveTimeout(posix, session, SESSION_IDLE_MILLIS);
                        doors.successorReady(id);
                        lines.send(Protocol.RELEASED);
                    }
                    default -> lines.send(Protocol.NONE + "\tunknown request " + request[0]);
                }
            }
        } catch (EOFException done) {
            // the successor (or the launcher's check) is through, or a silent session was ended for a newcomer
        } catch (PosixException e) {
            if (e.errno() == Errno.EAGAIN && state.readyPromiseMillis >= 0 && !state.ready) {
                stopStuckSuccessor(state, peer);
            } else {
                LOG.warn("handover session on {} ended: {}", path, e.toString());
            }
        } catch (IOException | RuntimeException e) {
            if (state.spoke) {
                LOG.warn("handover session on {} ended: {}", path, e.toString());
            } else {
                LOG.info("handover socket {}: a connection that sent no request within {} ms is closed ({})", path,
                        FIRST_REQUEST_MILLIS, e.toString());
            }
        } finally {
            open.remove(session);
            if (state.pidfd >= 0) {
                posix.close(state.pidfd);
            }
            posix.close(session);
            doors.sessionEnded(id, peer, state.successor);
        }
    }

    /**
     * SUCCESSOR's optional field: the successor says READY within that many ms (its ready timeout). The session's
     * receive bound becomes that plus {@link #READY_GRACE_MILLIS}, and the successor's process is held by a pidfd
     * so that only it can be stopped later.
     */
    private void promiseReady(int session, Session state, int peer, String[] request) {
        if (request.length < 2 || state.readyPromiseMillis >= 0) {
            return;
        }
        long promise;
        try {
            promise = Math.min(Math.max(Long.parseLong(request[1]), 0), MAX_READY_PROMISE_MILLIS);
        } catch (NumberFormatException e) {
            return;
        }
        state.readyPromiseMillis = promise;
        Protocol.receiveTimeout(posix, session, promise + READY_GRACE_MILLIS);
        if (peer != ProcessHandle.current().pid()) {       // a test's successor may run in this process
            state.pidfd = successorProcess(session, peer);
        }
    }

    /**
     * A pidfd of the successor's process, -1 when there is none. {@code SO_PEERPIDFD} (Linux 6.5) names exactly
     * the process that connected. Otherwise by the pid {@code SO_PEERCRED} gave at connect, then the connection is
     * checked still open: a process that had exited (its pid free for another) would have closed it, so an open
     * connection proves the pidfd names the successor.
     */
    private int successorProcess(int session, int peer) {
        try {
            return posix.peerPidfd(session);
        } catch (PosixException e) {
            LOG.debug("handover session: no SO_PEERPIDFD: {}", e.toString());
        }
        if (peer <= 0) {
            return -1;                                     // in another PID namespace, on a kernel before 6.5
        }
        int pidfd;
        try {
            pidfd = posix.pidfdOpen(peer, 0);
        } catch (PosixException e) {
            LOG.debug("handover session: no pidfd for pid {}: {}", peer, e.toString());
            return -1;
        }
        if (!Protocol.peerClosed(posix, session)) {
            return pidfd;
        }
        posix.close(pidfd);                                // it closed the connection: the pid may be another's
        return -1;
    }

    /**
     * The successor broke its READY promise: its process runs none of its code, and it holds the doors it took.
     * It is killed, through its pidfd; the session's end then counts as a successor lost, so this instance takes
     * the doors back and registers its pools again. The kernel signals only a process of this PID namespace or of
     * one below it: a successor in a sibling namespace (the DaemonSet's surge pod, without hostPID) cannot be
     * stopped from here (EINVAL), and the pods' liveness probes end it.
     */
    private void stopStuckSuccessor(Session state, int peer) {
        long silent = state.readyPromiseMillis + READY_GRACE_MILLIS;
        if (state.pidfd < 0) {
            LOG.error("the successor{} promised READY within {} ms and has said nothing for {} ms: it is stuck, and"
                    + " this instance cannot stop it (it runs in another PID namespace); the doors it took stay with"
                    + " it until its liveness probe ends it",
                    peer > 0 ? " pid=" + peer : "", state.readyPromiseMillis, silent);
            return;
        }
        try {
            posix.pidfdSendSignal(state.pidfd, Posix.SIGKILL);
            LOG.error("the successor pid={} promised READY within {} ms and has said nothing for {} ms (stopped or"
                    + " wedged): killed it; this instance takes back the doors it took and serves on", peer,
                    state.readyPromiseMillis, silent);
        } catch (PosixException e) {
            LOG.error("the successor pid={} promised READY within {} ms and has said nothing for {} ms, and cannot be"
                    + " killed from here ({}: another pod's PID namespace?); the doors it took stay with it until its"
                    + " liveness probe ends it", peer, state.readyPromiseMillis, silent, e.getMessage());
        }
    }

    private int peerPid(int session) {
        try {
            return posix.peerCredentials(session).pid();
        } catch (RuntimeException e) {
            LOG.debug("handover session: no peer credentials: {}", e.toString());
            return -1;
        }
    }

    private void take(Object session, FdLines lines, String[] request) {
        if (request.length != 3) {
            lines.send(Protocol.NONE + "\tTAKE needs a name and an address");
            return;
        }
        Taken taken = doors.handOver(session, request[1], request[2]);
        if (taken.fd() < 0) {
            lines.send(Protocol.NONE + "\t" + taken.reason());
            return;
        }
        try {
            lines.send(Protocol.FD, taken.fd());
        } finally {
            posix.close(taken.fd());
        }
    }

    private static String[] prepend(String first, String[] rest) {
        String[] all = new String[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    /** Stops listening; the socket file goes only if no successor has bound its own there since. */
    @Override
    public void close() {
        running = false;
        // A successor still taking over sees the end of its session at once (as when this process exits), and
        // goes ahead instead of waiting for its ready timeout.
        for (int session : open.keySet()) {
            try {
                posix.shutdown(session, Posix.SHUT_RDWR);
            } catch (RuntimeException gone) {
                // ended meanwhile
            }
        }
        try {
            thread.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        posix.close(fd);
        try {
            if (Files.exists(path) && Objects.equals(Files.getAttribute(path, "unix:ino"), inode)) {
                Files.delete(path);
            }
        } catch (IOException e) {
            LOG.debug("cannot remove {}: {}", path, e.toString());
        }
    }
}
