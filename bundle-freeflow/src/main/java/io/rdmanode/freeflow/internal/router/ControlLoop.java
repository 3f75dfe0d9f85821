// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.posix.UnixConnection;
import io.rdmanode.freeflow.internal.posix.UnixServer;
import io.rdmanode.freeflow.internal.wire.Func;
import io.rdmanode.freeflow.internal.wire.FuncSpec;
import io.rdmanode.freeflow.internal.wire.LayoutTable;
import io.rdmanode.freeflow.internal.wire.RequestHeader;
import io.rdmanode.freeflow.internal.wire.Wire;
import io.rdmanode.posix.Posix;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control server's one I/O thread: poll(2) over an eventfd (wake-ups), the listening socket (while under the
 * total cap) and every connection waiting for a request; reads without blocking (MSG_DONTWAIT), and passes each
 * complete request to a worker, taking the connection out of the poll set until the worker hands it back.
 * Connections quiet between requests move to the {@link IdleSet}, so this poll covers the connections in use only;
 * a request stalled half-way is cut at the idle timeout (whatever its process holds: no client pauses inside a
 * request, and it would sit in this poll set), except on an event channel's connection.
 */
final class ControlLoop {
    private static final Logger LOG = LoggerFactory.getLogger(ControlLoop.class);
    /** Longest poll without a wake-up while connections are in the set: quiet ones are looked for this often. */
    private static final int MAX_WAIT_MS = 50;
    /** A connection quiet this long between requests leaves the loop's poll set for the {@link IdleSet}'s. */
    private static final long QUIET_NANOS = 50_000_000L;
    /**
     * A body's first buffer: the whole of every fixed request; a larger (post) body grows as its bytes arrive, so a
     * header alone never makes the router hold the 1 MiB it may declare.
     */
    private static final int FIRST_BODY_BYTES = 64 << 10;

    private volatile UnixServer server;
    private final ControlServer owner;
    private final Posix posix = Posix.libc();
    private final int wakeFd;
    private final LayoutTable table = LayoutTable.standard();
    private final ConcurrentLinkedQueue<ControlConnection> returning = new ConcurrentLinkedQueue<>();
    /** Connections accepted earlier that join the loop unread: disowned by the predecessor, or taken back from a successor. */
    private final ConcurrentLinkedQueue<UnixConnection> arriving = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private final IdleSet idleSet;
    private List<ControlConnection> polled = new ArrayList<>();
    private volatile boolean running = true;
    private volatile boolean handedOver;
    private volatile java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(1);
    private boolean paused;

    ControlLoop(UnixServer server, ControlServer owner) {
        this.server = server;
        this.owner = owner;
        this.wakeFd = posix.eventfd(0, Posix.EFD_CLOEXEC | Posix.EFD_NONBLOCK);
        this.thread = new Thread(this::run, "freeflow-control-loop");
        thread.setDaemon(true);
        this.idleSet = new IdleSet(owner, this::resume);
    }

    void start() {
        idleSet.start();
        thread.start();
    }

    void wake() {
        try {
            posix.write(wakeFd, new byte[] {1, 0, 0, 0, 0, 0, 0, 0}, 8);
        } catch (RuntimeException closed) {
            // stopping: nothing to wake
        }
    }

    void resume(ControlConnection cc) {
        returning.add(cc);
        wake();
    }

    /** A connection accepted elsewhere (or earlier) to serve as if just accepted. */
    void arrive(UnixConnection c) {
        arriving.add(c);
        wake();
    }

    /**
     * A successor takes the listening socket: from the loop's next turn on it never polls or accepts on it again,
     * and the loop closes this process's descriptor (so no poll of it is under way when it closes). Returns once
     * that happened, or after a second if the loop is not turning.
     */
    void stopAccepting() {
        handedOver = true;
        wake();
        try {
            if (!released.await(1, java.util.concurrent.TimeUnit.SECONDS)) {
                server.release();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            server.release();
        }
    }

    /**
     * The successor that took the listening socket died before it served it: from the loop's next turn on it
     * accepts on {@code taken} (the same socket, through a descriptor of this process) again.
     */
    synchronized void acceptAgain(UnixServer taken) {
        try {
            released.await(1, java.util.concurrent.TimeUnit.SECONDS);  // the old descriptor closed by the loop first
            // The loop swaps the server, the latch and the flag it reads itself, between two turns: set from here, a
            // turn that had read the flag before could release the new descriptor or count the new latch down.
            java.util.concurrent.CountDownLatch applied = new java.util.concurrent.CountDownLatch(1);
            takenBackApplied = applied;
            takenBack = taken;
            wake();
            if (!applied.await(1, java.util.concurrent.TimeUnit.SECONDS)) {
                LOG.warn("freeflow control loop did not take its socket back within 1 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private volatile UnixServer takenBack;
    private volatile java.util.concurrent.CountDownLatch takenBackApplied = new java.util.concurrent.CountDownLatch(0);

    /** On the loop's thread: a taken-back socket is accepted on from this turn on. */
    private void applyTakenBack() {
        UnixServer taken = takenBack;
        if (taken == null) {
            return;
        }
        takenBack = null;
        server.release();
        server = taken;
        released = new java.util.concurrent.CountDownLatch(1);
        handedOver = false;
        takenBackApplied.countDown();
    }

    boolean acceptingStopped() {
        return handedOver;
    }

    void stop() {
        running = false;
        wake();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (ControlConnection cc : polled) {
            owner.close(cc);
        }
        for (ControlConnection cc; (cc = returning.poll()) != null; ) {
            owner.close(cc);
        }
        for (UnixConnection c; (c = arriving.poll()) != null; ) {
            c.close();
        }
        idleSet.stop();
        posix.close(wakeFd);
    }

    private void run() {
        GuardedLoop.run("freeflow control loop", () -> running, this::turn, LOG);
    }

    private void turn() {
        applyTakenBack();
        for (ControlConnection cc; (cc = returning.poll()) != null; ) {
            if (!cc.closed()) {
                polled.add(cc);
            }
        }
        if (handedOver && released.getCount() > 0) {
            server.release();
            released.countDown();
        }
        ControlSettings s = owner.settings();
        boolean underCap = owner.openConnections() < s.maxConnections();
        boolean accepting = !handedOver && underCap;
        if (!underCap && !paused) {
            owner.atCapacity(s.maxConnections());   // not after a handover: not accepting then is no pause
        }
        paused = !underCap;
        int fixed = accepting ? 2 : 1;
        int[] fds = new int[fixed + polled.size()];
        fds[0] = wakeFd;
        if (accepting) {
            fds[1] = server.fd();
        }
        for (int i = 0; i < polled.size(); i++) {
            fds[fixed + i] = polled.get(i).conn.fd();
        }
        short[] rev = posix.poll(fds, Posix.POLLIN, polled.isEmpty() ? 1000 : MAX_WAIT_MS);
        if (!running) {
            return;
        }
        if (rev[0] != 0) {
            posix.read(wakeFd, new byte[8], 8);
        }
        List<ControlConnection> next = new ArrayList<>(polled.size() + 16);
        for (int i = 0; i < polled.size(); i++) {
            ControlConnection cc = polled.get(i);
            if (cc.closed()) {
                continue;
            }
            if (rev[fixed + i] == 0 || step(cc)) {
                next.add(cc);
            }
        }
        if (accepting && rev[1] != 0) {
            acceptAll(next, s);
        }
        for (UnixConnection c; (c = arriving.poll()) != null; ) {
            ControlConnection cc = owner.admit(c);
            if (step(cc)) {
                next.add(cc);
            }
        }
        polled = cutIdle(next, s);
    }

    private void acceptAll(List<ControlConnection> into, ControlSettings s) {
        while (owner.openConnections() < s.maxConnections()) {
            UnixConnection c;
            try {
                c = server.accept();
            } catch (IOException e) {
                LOG.debug("freeflow accept: {}", e.getMessage());
                return;
            }
            if (c == null) {
                return;
            }
            if (owner.passToPredecessor(c)) {
                continue;                                   // read by the predecessor, or back through arrive
            }
            ControlConnection cc = owner.admit(c);
            // The genuine client writes its request right after connect: often it is there already.
            if (step(cc)) {
                into.add(cc);
            }
        }
    }

    /** Reads what the connection has; true while it stays in the poll set (false: dispatched or closed). */
    private boolean step(ControlConnection cc) {
        try {
            if (cc.request == null) {
                if (cc.conn.readNow(cc.header) > 0) {
                    cc.lastActivityNanos = System.nanoTime();
                }
                if (cc.header.hasRemaining()) {
                    return true;
                }
                cc.request = RequestHeader.decode(cc.header.flip());
                FuncSpec spec = table.func(cc.request.func());
                if (spec == null || cc.request.bodySize() > Dispatcher.MAX_BODY) {
                    owner.dispatch(cc);                 // answered EINVAL and closed by the worker
                    return false;
                }
                cc.body = Wire.allocate((int) Math.min(cc.request.bodySize(), FIRST_BODY_BYTES));
                if (!owner.charge(cc, cc.body.capacity())) {
                    return false;
                }
                if (cc.request.func() == Func.GET_CQ_EVENT && cc.body.capacity() == 4
                        || cc.request.func() == Func.CM_GET_EVENT && cc.body.capacity() == 24) {
                    cc.eventMode = true;
                    if (cc.conn.peek(cc.body) == cc.body.capacity()) {
                        cc.bodyUnread = true;
                        owner.dispatch(cc);
                        return false;
                    }
                    cc.body.clear();
                }
            }
            while (true) {
                if (cc.body.hasRemaining() && cc.conn.readNow(cc.body) > 0) {
                    cc.lastActivityNanos = System.nanoTime();
                }
                if (cc.body.hasRemaining()) {
                    return true;
                }
                if (cc.body.capacity() == cc.request.bodySize()) {
                    owner.dispatch(cc);
                    return false;
                }
                if (!grow(cc)) {
                    return false;                       // over the budget: closed
                }
            }
        } catch (IOException e) {
            LOG.debug("freeflow connection of pid {} ended: {}", cc.pid(), e.getMessage());
            owner.close(cc);
            return false;
        }
    }

    /** The body's buffer doubled (up to its declared size) once full, charged to the budget first. */
    private boolean grow(ControlConnection cc) {
        int capacity = cc.body.capacity();
        int next = (int) Math.min(cc.request.bodySize(), 2L * capacity);
        if (!owner.charge(cc, next - capacity)) {
            return false;
        }
        cc.body = Wire.allocate(next).put(cc.body.flip());
        return true;
    }

    private List<ControlConnection> cutIdle(List<ControlConnection> list, ControlSettings s) {
        long now = System.nanoTime();
        long idle = s.idleTimeoutMillis() * 1_000_000L;
        List<ControlConnection> kept = new ArrayList<>(list.size());
        for (ControlConnection cc : list) {
            if (cc.request == null && cc.header.position() == 0 && now - cc.lastActivityNanos > QUIET_NANOS) {
                idleSet.add(cc);
            } else if (!cc.eventMode && now - cc.lastActivityNanos > idle) {
                owner.idleCuts.increment();
                LOG.debug("freeflow connection of pid {} idle for {} ms: closed", cc.pid(), s.idleTimeoutMillis());
                owner.close(cc);
            } else {
                kept.add(cc);
            }
        }
        return kept;
    }
}
