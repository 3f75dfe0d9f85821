// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.agent.RefusalLog;
import io.rdmanode.freeflow.internal.posix.PeerCred;
import io.rdmanode.freeflow.internal.posix.UnixConnection;
import io.rdmanode.posix.FdLines;
import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A successor's link to its draining predecessor's {@link DrainDesk}: the connections it accepts from the
 * predecessor's tenants go back there (their objects live there), every other connection is served here. One
 * thread asks and passes, one connection at a time, off the control loop: the loop hands a fresh connection over
 * unread and gets it back through {@link ControlServer#serveHere} when the predecessor does not claim it.
 *
 * <p>Bounded: at most {@link #MAX_PENDING} connections wait for an answer (past it they are served here, logged
 * once a minute), and an answer is awaited {@link #ANSWER_MILLIS} at most. A predecessor that does not answer in
 * time, answers garbage or has gone ends the link: from then on everything is served here, where the
 * predecessor's tenants get errors for handles this router does not know (not a hang). A pid the predecessor
 * disowned once is never asked about again: a draining router takes no new tenants.
 */
final class PredecessorLink implements AutoCloseable {
    static final int MAX_PENDING = 256;
    static final long ANSWER_MILLIS = 1_000;
    /** Disowned pids remembered; past it the set starts anew (asking again costs a round trip, nothing else). */
    private static final int MAX_REMEMBERED = 65_536;
    private static final int EPIPE = 32;
    private static final int ECONNRESET = 104;
    private static final Logger LOG = LoggerFactory.getLogger(PredecessorLink.class);

    private final UnixConnection desk;
    private final FdLines lines;
    private final ControlServer owner;
    private final BlockingQueue<UnixConnection> pending = new ArrayBlockingQueue<>(MAX_PENDING);
    private final Set<Integer> notTheirs = ConcurrentHashMap.newKeySet();
    private final RefusalLog full = new RefusalLog(LOG, Duration.ofMinutes(1));
    private final Thread thread;
    private volatile boolean open = true;

    private PredecessorLink(UnixConnection desk, ControlServer owner) {
        this.desk = desk;
        this.owner = owner;
        this.lines = new FdLines(Posix.libc(), desk.fd());
        lines.receiveTimeout(ANSWER_MILLIS);
        this.thread = new Thread(this::run, "freeflow-predecessor-link");
        thread.setDaemon(true);
    }

    /** Connects to the predecessor's desk beside controlSocket; empty when none answers there (no drain). */
    static Optional<PredecessorLink> connect(Path controlSocket, ControlServer owner) {
        Path path = DrainDesk.pathFor(controlSocket);
        UnixConnection c;
        try {
            c = UnixConnection.connect(path);
        } catch (IOException e) {
            LOG.info("freeflow router: no draining predecessor at {} ({}): its tenants, if any, are served here",
                    path, e.getMessage());
            return Optional.empty();
        }
        PredecessorLink link = new PredecessorLink(c, owner);
        link.thread.start();
        LOG.info("freeflow router: connections of predecessor pid {}'s tenants go back to it while it drains",
                c.peer().pid());
        return Optional.of(link);
    }

    /**
     * Takes a freshly accepted connection to ask about: true when it is this link's now (it comes back through
     * {@link ControlServer#serveHere} unless the predecessor takes it), false when the caller serves it.
     */
    boolean offer(UnixConnection c) {
        if (!open || notTheirs.contains(c.peer().pid())) {
            return false;
        }
        if (!pending.offer(c)) {
            full.warn("freeflow-link-full", "freeflow router: {} connections already wait to be asked about at the"
                    + " predecessor; serving pid {} here", MAX_PENDING, c.peer().pid());
            return false;
        }
        if (!open && pending.remove(c)) {
            return false;                                   // closed meanwhile: nobody would take it
        }
        return true;
    }

    boolean open() {
        return open;
    }

    private void run() {
        try {
            while (open) {
                UnixConnection c = pending.poll(200, TimeUnit.MILLISECONDS);
                if (c != null) {
                    pass(c);
                } else {
                    noticeEnd();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            open = false;
            for (UnixConnection c; (c = pending.poll()) != null; ) {
                owner.serveHere(c);
            }
            desk.close();
        }
    }

    /** The predecessor's tenants' connections go back to it, every other one is served here. */
    private void pass(UnixConnection c) {
        if (claims(c.peer())) {
            if (hand(c)) {
                LOG.debug("freeflow connection of pid {} passed to the draining predecessor", c.peer().pid());
                return;
            }
        } else if (open) {
            if (notTheirs.size() >= MAX_REMEMBERED) {
                notTheirs.clear();
            }
            notTheirs.add(c.peer().pid());
        }
        owner.serveHere(c);
    }

    /**
     * Whether the predecessor claims who's process: a live tenant there, or further up a chain of drains (a
     * predecessor that took over while its own predecessor drained asks that one in turn). False once the link
     * has ended. Any failure ends it: an answer that came late would pair with the wrong question.
     */
    synchronized boolean claims(PeerCred who) {
        if (!open) {
            return false;
        }
        try {
            lines.send(DrainDesk.ASK + "\t" + who.pid() + "\t" + who.uid());
            FdLines.Line answer = lines.read();
            for (int fd : answer.fds()) {
                Posix.libc().close(fd);
            }
            if (answer.text().equals(DrainDesk.MINE)) {
                return true;
            }
            if (answer.text().equals(DrainDesk.NOT)) {
                return false;
            }
            throw new IOException("unexpected answer " + answer.text());
        } catch (IOException | RuntimeException e) {
            end(e);
            return false;
        }
    }

    /**
     * Passes c to the predecessor, which claimed its process: true once sent, and c is closed here (the
     * predecessor's copy serves it); false when the link has ended, and c is still the caller's.
     */
    synchronized boolean hand(UnixConnection c) {
        if (!open) {
            return false;
        }
        try {
            lines.send(DrainDesk.TAKE + "\t" + c.peer().pid(), c.fd());
        } catch (RuntimeException e) {
            end(e);
            return false;
        }
        c.close();
        owner.forwarded.increment();
        return true;
    }

    /** Between questions nothing may come from the desk: anything readable there is its end (the drain is over). */
    private synchronized void noticeEnd() {
        if (open && Posix.libc().poll(new int[] {desk.fd()}, Posix.POLLIN, 0)[0] != 0) {
            end(new EOFException("the desk closed"));
        }
    }

    private void end(Exception e) {
        open = false;
        if (e instanceof EOFException) {
            LOG.info("freeflow router: the predecessor's drain ended; every connection is served here now");
        } else if (e instanceof PosixException p && (p.errno() == EPIPE || p.errno() == ECONNRESET)) {
            LOG.info("freeflow router: the predecessor has gone ({}); every connection is served here now",
                    p.reason());
        } else if (e instanceof PosixException p) {
            LOG.warn("freeflow router: the draining predecessor did not answer ({}); its tenants' connections"
                    + " are served here from now on, where their handles are unknown", p.reason());
        } else {
            LOG.warn("freeflow router: the link to the draining predecessor failed ({}); its tenants' connections"
                    + " are served here from now on, where their handles are unknown", e.toString());
        }
    }

    @Override
    public void close() {
        open = false;
        desk.shutdown();
        try {
            thread.join(ANSWER_MILLIS + 1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
