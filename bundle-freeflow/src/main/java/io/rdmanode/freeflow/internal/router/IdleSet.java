// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.posix.Posix;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connections that have sent nothing for a while, polled by a thread of their own so that the control loop's
 * poll(2) covers only the connections in use: poll costs time in the number of descriptors, and a thousand idle
 * connections in the loop's set made every other client's request several times slower. A connection that becomes
 * readable (a request, or the client closing) goes back to the loop; one idle past the timeout is closed, unless it
 * is an event channel's connection (GET_CQ_EVENT, CM_GET_EVENT), its process sent a request on another connection
 * within the timeout ({@link ControlServer#quietSince}), or its process holds objects here
 * ({@link ControlServer#holdsObjects}): then it is a session's, kept however long it is quiet.
 */
final class IdleSet {
    private static final Logger LOG = LoggerFactory.getLogger(IdleSet.class);
    private static final int MAX_WAIT_MS = 1000;

    private final ControlServer owner;
    private final Consumer<ControlConnection> toLoop;
    private final Posix posix = Posix.libc();
    private final int wakeFd;
    private final ConcurrentLinkedQueue<ControlConnection> arriving = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private List<ControlConnection> idle = new ArrayList<>();
    private volatile boolean running = true;

    IdleSet(ControlServer owner, Consumer<ControlConnection> toLoop) {
        this.owner = owner;
        this.toLoop = toLoop;
        this.wakeFd = posix.eventfd(0, Posix.EFD_CLOEXEC | Posix.EFD_NONBLOCK);
        this.thread = new Thread(this::run, "freeflow-control-idle");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void add(ControlConnection cc) {
        arriving.add(cc);
        posix.write(wakeFd, new byte[] {1, 0, 0, 0, 0, 0, 0, 0}, 8);
    }

    void stop() {
        running = false;
        posix.write(wakeFd, new byte[] {1, 0, 0, 0, 0, 0, 0, 0}, 8);
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (ControlConnection cc : idle) {
            owner.close(cc);
        }
        for (ControlConnection cc; (cc = arriving.poll()) != null; ) {
            owner.close(cc);
        }
        posix.close(wakeFd);
    }

    private void run() {
        GuardedLoop.run("freeflow idle connections", () -> running, this::turn, LOG);
    }

    private void turn() {
        for (ControlConnection cc; (cc = arriving.poll()) != null; ) {
            idle.add(cc);
        }
        int[] fds = new int[1 + idle.size()];
        fds[0] = wakeFd;
        for (int i = 0; i < idle.size(); i++) {
            fds[1 + i] = idle.get(i).conn.fd();
        }
        short[] rev = posix.poll(fds, Posix.POLLIN, MAX_WAIT_MS);
        if (rev[0] != 0) {
            posix.read(wakeFd, new byte[8], 8);
        }
        ControlSettings s = owner.settings();
        long now = System.nanoTime();
        long timeout = s.idleTimeoutMillis() * 1_000_000L;
        List<ControlConnection> kept = new ArrayList<>(idle.size());
        Map<Integer, Boolean> holding = new HashMap<>();     // asked once per process and turn (the router's lock)
        for (int i = 0; i < idle.size(); i++) {
            ControlConnection cc = idle.get(i);
            if (cc.closed()) {
                continue;
            }
            if (rev[1 + i] != 0) {
                toLoop.accept(cc);
            } else if (!cc.eventMode && now - owner.quietSince(cc) > timeout
                    && !holding.computeIfAbsent(cc.pid(), p -> owner.holdsObjects(cc.conn.peer()))) {
                owner.idleCuts.increment();
                LOG.debug("freeflow connection of pid {} idle for {} ms: closed", cc.pid(), s.idleTimeoutMillis());
                owner.close(cc);
            } else {
                kept.add(cc);
            }
        }
        idle = kept;
    }
}
