// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.agent.RefusalLog;
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

    /**
     * Asks about c's process; passes c to the predecessor when it claims it, else serves it here. Any failure ends
     * the link: an answer that comes late would pair with the wrong question.
     */
    private void pass(UnixConnection c) {
        int pid = c.peer().pid();
        try {
            lines.send(DrainDesk.ASK + "\t" + pid + "\t" + c.peer().uid());
            FdLines.Line answer = lines.read();
            for (int fd : answer.fds()) {
                Posix.libc().close(fd);
            }
            if (answer.text().equals(DrainDesk.MINE)) {
                lines.send(DrainDesk.TAKE + "\t" + pid, c.fd());
                c.close();                                 // the predecessor's copy serves it now
                owner.forwarded.increment();
                LOG.debug("freeflow connection of pid {} passed to the draining predecessor", pid);
                return;
            }
            if (!answer.text().equals(DrainDesk.NOT)) {
                throw new IOException("unexpected answer " + answer.text());
            }
            if (notTheirs.size() >= MAX_REMEMBERED) {
                notTheirs.clear();
            }
            notTheirs.add(pid);
        } catch (EOFException ended) {
            open = false;
            LOG.info("freeflow router: the predecessor's drain ended; every connection is served here now");
        } catch (PosixException e) {
            open = false;
            if (e.errno() == EPIPE || e.errno() == ECONNRESET) {
                LOG.info("freeflow router: the predecessor has gone ({}); every connection is served here now",
                        e.reason());
            } else {
                LOG.warn("freeflow router: the draining predecessor did not answer ({}); its tenants' connections"
                        + " are served here from now on, where their handles are unknown", e.reason());
            }
        } catch (IOException | RuntimeException e) {
            open = false;
            LOG.warn("freeflow router: the link to the draining predecessor failed ({}); its tenants' connections"
                    + " are served here from now on, where their handles are unknown", e.toString());
        }
        owner.serveHere(c);
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
