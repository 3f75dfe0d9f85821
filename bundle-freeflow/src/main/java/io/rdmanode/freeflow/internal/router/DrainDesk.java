// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.posix.PeerCred;
import io.rdmanode.freeflow.internal.posix.UnixConnection;
import io.rdmanode.freeflow.internal.posix.UnixServer;
import io.rdmanode.posix.FdLines;
import io.rdmanode.posix.Posix;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A draining predecessor's desk, where the successor brings back the connections of this router's tenants. The
 * genuine Freeflow client opens a new connection per verb, so after a handover a tenant that started here
 * reaches the successor with its next verb, and only this router knows its objects. The successor asks for each
 * connection it accepts (or each new pid, see {@link PredecessorLink}), and passes the ones this router claims
 * (SCM_RIGHTS); they join this router's control loop unread. A process that holds nothing here is not claimed:
 * it loses nothing by moving on, and the drain does not wait for it. Open from the handover until the drain ends.
 *
 * <p>The protocol, framed by {@link FdLines} on {@code <socketDir>/.<routerName>.drain} (mode 0600, peers of
 * this process's uid only):
 * <pre>
 * ASK &lt;pid&gt; &lt;uid&gt;        -&gt; MINE | NOT      (is that client process a live tenant here that holds
 *                                              objects, or one of this router's own draining predecessor?)
 * TAKE &lt;pid&gt; (+ the fd)    -&gt; no answer       (the connection is this router's from now on)
 * </pre>
 * TAKE needs no answer: once the descriptor is sent the successor closes its copy, so the connection is served
 * by exactly one process whatever happens next (should this one die first, the kernel closes the descriptor in
 * flight and the client reads an end of stream: an error, not a hang). A connection whose tenant exited between
 * ASK and TAKE is closed; one of a tenant of this router's own predecessor goes on to it (handovers faster than
 * drains make a chain, each router relaying up). The client's identity is never taken from the successor's
 * words: a passed connection's peer is read from the socket itself, as the kernel recorded it at connect.
 */
final class DrainDesk implements AutoCloseable {
    static final String ASK = "ASK";
    static final String TAKE = "TAKE";
    static final String MINE = "MINE";
    static final String NOT = "NOT";
    /** Successors served at once: one, plus those that died while starting and the next one. */
    private static final int MAX_SESSIONS = 4;
    private static final Logger LOG = LoggerFactory.getLogger(DrainDesk.class);

    private final UnixServer server;
    private final Object fileKey;
    private final int uid;
    private final ControlServer owner;
    private final Posix posix = Posix.libc();
    private final Set<UnixConnection> sessions = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile boolean running = true;

    /** The desk's path beside the control socket: the successor finds it from the socket it took over. */
    static Path pathFor(Path controlSocket) {
        return controlSocket.resolveSibling("." + controlSocket.getFileName() + ".drain");
    }

    private DrainDesk(UnixServer server, Object fileKey, int uid, ControlServer owner) {
        this.server = server;
        this.fileKey = fileKey;
        this.uid = uid;
        this.owner = owner;
        this.acceptor = new Thread(this::acceptLoop, "freeflow-drain-desk");
        acceptor.setDaemon(true);
    }

    static DrainDesk open(Path controlSocket, ControlServer owner) throws IOException {
        Path path = pathFor(controlSocket);
        UnixServer server = UnixServer.listen(path, "rw-------");
        try {
            // The file is this process's: its owner is the uid that successors must run as.
            int uid = (Integer) Files.getAttribute(path, "unix:uid");
            Object key = Files.readAttributes(path, BasicFileAttributes.class).fileKey();
            DrainDesk desk = new DrainDesk(server, key, uid, owner);
            desk.acceptor.start();
            return desk;
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    Path path() {
        return server.path();
    }

    private void acceptLoop() {
        while (running) {
            try {
                if (posix.poll(new int[] {server.fd()}, Posix.POLLIN, 200)[0] == 0) {
                    continue;
                }
                UnixConnection c = server.accept();
                if (c != null) {
                    admit(c);
                }
            } catch (IOException | RuntimeException e) {
                if (running) {
                    LOG.warn("freeflow drain desk {}: {}", server.path(), e.toString());
                    sleepBriefly();
                }
            }
        }
    }

    private void admit(UnixConnection c) {
        if (c.peer().uid() != uid) {
            LOG.warn("freeflow drain desk {}: refused pid {} of uid {} (only uid {} hands connections back)",
                    server.path(), c.peer().pid(), c.peer().uid(), uid);
            c.close();
            return;
        }
        if (sessions.size() >= MAX_SESSIONS) {
            LOG.warn("freeflow drain desk {}: {} successors connected already; refused pid {}", server.path(),
                    MAX_SESSIONS, c.peer().pid());
            c.close();
            return;
        }
        sessions.add(c);
        Thread t = new Thread(() -> serve(c), "freeflow-drain-desk-" + c.peer().pid());
        t.setDaemon(true);
        t.start();
        LOG.info("freeflow successor pid {} connected to the drain desk: it hands this router's tenants back",
                c.peer().pid());
    }

    private void serve(UnixConnection c) {
        FdLines lines = new FdLines(posix, c.fd());
        try {
            while (running) {
                FdLines.Line line = lines.read();
                String[] f = line.fields();
                int[] fds = line.fds();
                if (f[0].equals(ASK) && f.length == 3 && fds.length == 0) {
                    PeerCred who = new PeerCred(Integer.parseInt(f[1]), Integer.parseInt(f[2]), 0);
                    lines.send(owner.claims(who) ? MINE : NOT);
                } else if (f[0].equals(TAKE) && fds.length == 1) {
                    owner.takeBack(fds[0]);
                } else {
                    for (int fd : fds) {
                        posix.close(fd);
                    }
                    throw new IOException("unexpected message " + line.text());
                }
            }
        } catch (EOFException ended) {
            LOG.debug("freeflow successor pid {} left the drain desk", c.peer().pid());
        } catch (IOException | RuntimeException e) {
            if (running) {
                LOG.warn("freeflow drain desk session of pid {} ended: {}", c.peer().pid(), e.toString());
            }
        } finally {
            sessions.remove(c);
            c.close();
        }
    }

    private static void sleepBriefly() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops taking connections back: the successor's next ASK reads an end of stream and it serves every
     * connection itself from then on. The path is removed only while it is still this desk's (a later handover of
     * the successor may have bound its own desk there).
     */
    @Override
    public void close() {
        running = false;
        for (UnixConnection c : sessions) {
            c.shutdown();
        }
        try {
            acceptor.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        server.release();
        try {
            Path path = server.path();
            if (Files.exists(path) && Objects.equals(fileKey,
                    Files.readAttributes(path, BasicFileAttributes.class).fileKey())) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            LOG.debug("freeflow drain desk {}: {}", server.path(), e.toString());
        }
    }
}
