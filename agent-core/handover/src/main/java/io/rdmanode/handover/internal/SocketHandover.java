// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.handover.internal;

import io.rdmanode.agent.Handover;
import io.rdmanode.posix.Posix;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link Handover} over {@code <stateDir>/handover.sock}, both roles in one object: at start it connects to a
 * running predecessor (if any) and takes doors from it; it listens for a successor of its own at once on a first
 * start, after the predecessor handed over otherwise (the path is the predecessor's until then). The
 * successor says READY once every door the predecessor offered is offered here again (served), or after
 * {@code readyTimeout} for doors this instance does not serve; the predecessor then hands over and releases
 * {@code state.lock}, which the successor takes.
 */
final class SocketHandover implements Handover, HandoverListener.Doors, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SocketHandover.class);
    private static final long SESSION_TIMEOUT_MILLIS = 10_000;
    private static final long LOCK_RETRY_MILLIS = 50;

    private final Posix posix;
    private final Path stateDir;
    private final OfferedDoors doors;
    private final List<Runnable> actions = new CopyOnWriteArrayList<>();
    private final List<Runnable> successorLostActions = new CopyOnWriteArrayList<>();
    private final Set<String> pending = ConcurrentHashMap.newKeySet();
    private final WriterLock writerLock;
    private final WriterLock startLock;
    private final ScheduledExecutorService timer;
    private final long startedNanos = System.nanoTime();
    private volatile Duration readyTimeout;
    private volatile boolean handedOver;
    private volatile boolean tookOver;
    /** Listening for a successor, and started (its doors offered): the start lock goes once both are true. */
    private boolean listening;
    private boolean started;
    private PredecessorSession session;
    private HandoverListener listener;

    SocketHandover(Posix posix, Path stateDir, Duration readyTimeout) {
        this.posix = posix;
        this.stateDir = stateDir;
        this.readyTimeout = readyTimeout;
        this.writerLock = new WriterLock(posix, stateDir.resolve(Protocol.LOCK));
        this.startLock = new WriterLock(posix, stateDir.resolve(Protocol.START_LOCK));
        this.doors = new OfferedDoors(posix);
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rdma-agent-handover-timer");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Waits its turn behind an instance that is starting (the start lock), connects to a predecessor (when one
     * runs) and listens for a successor. Never fails: a handover that cannot work is logged, and this instance's
     * doors then bind as on a first start.
     */
    synchronized SocketHandover start() {
        Path socket = stateDir.resolve(Protocol.SOCKET);
        awaitStartTurn();
        Optional<PredecessorSession> predecessor;
        try {
            predecessor = PredecessorSession.connect(posix, socket, SESSION_TIMEOUT_MILLIS, readyTimeout.toMillis());
        } catch (IOException e) {
            // The doors must serve either way: without the predecessor's sockets they are bound anew.
            LOG.warn("cannot take over from the predecessor: {}; starting as a first instance", e.getMessage());
            predecessor = Optional.empty();
        }
        if (predecessor.isEmpty()) {
            // Whoever held the start lock before this instance listens once it holds state.lock; state.lock still
            // held means a predecessor letting go after handing over to an instance that has just died, or one
            // wedged: wait for it briefly rather than serve beside it as a second writer, whose sweeps would
            // remove the files of devices the other just allocated.
            if (!awaitWriterLock(SESSION_TIMEOUT_MILLIS)) {
                LOG.error("another instance holds {} but does not answer on {}: starting beside it, writing the"
                        + " state directory only once it lets go", stateDir.resolve(Protocol.LOCK), socket);
                acquireWriterLock();
            }
            listenForSuccessor();
            return this;
        }
        // The socket path stays the predecessor's until it has handed over: should this instance die while it
        // starts, the next one still finds the predecessor (and the doors lent to this one) there.
        session = predecessor.get();
        tookOver = true;
        pending.addAll(session.doors().keySet());
        LOG.info("taking over from predecessor pid={} doors={}", session.pid(), session.doors());
        if (pending.isEmpty()) {
            timer.execute(this::successorServes);
        } else {
            timer.schedule(this::successorServes, readyTimeout.toMillis(), TimeUnit.MILLISECONDS);
            timer.schedule(this::watchPredecessor, PREDECESSOR_WATCH_MILLIS, TimeUnit.MILLISECONDS);
        }
        return this;
    }

    void readyTimeout(Duration timeout) {
        this.readyTimeout = timeout;
    }

    // ---- Handover, for this process's doors

    /**
     * A socket path with its directory's symlinks resolved, so that two configurations naming one socket through
     * different paths (a state directory reached through a symlink) name the same door; other addresses as given.
     */
    static String canonical(String address) {
        if (!address.startsWith("/")) {
            return address;
        }
        Path path = Path.of(address).normalize();
        Path parent = path.getParent();
        try {
            return parent == null ? address : parent.toRealPath().resolve(path.getFileName()).toString();
        } catch (IOException e) {
            return path.toString();
        }
    }

    @Override
    public OptionalInt take(String name, String given) {
        String address = canonical(given);
        PredecessorSession s;
        synchronized (this) {
            s = session;
        }
        if (s == null) {
            return OptionalInt.empty();
        }
        try {
            OptionalInt fd = s.take(name, address);
            fd.ifPresent(taken -> LOG.info("took door {} at {} from predecessor pid={}", name, address, s.pid()));
            return fd;
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot take door {} from predecessor pid={}: {}; binding anew", name, s.pid(), e.getMessage());
            return OptionalInt.empty();
        }
    }

    @Override
    public AutoCloseable offer(String name, String address, Door door) {
        AutoCloseable handle = doors.offer(name, canonical(address), door);
        if (pending.remove(name) && pending.isEmpty()) {
            timer.execute(this::successorServes);
        }
        return handle;
    }

    @Override
    public boolean handedOver() {
        return handedOver;
    }

    @Override
    public AutoCloseable onHandedOver(Runnable action) {
        boolean now;
        synchronized (this) {
            now = handedOver;
            if (!now) {
                actions.add(action);
            }
        }
        if (now) {
            action.run();
        }
        return () -> actions.remove(action);
    }

    // ---- HandoverListener.Doors, for a successor

    @Override
    public String[] offered() {
        return doors.fields();
    }

    @Override
    public HandoverListener.Taken handOver(Object session, String name, String address) {
        return doors.lend(session, name, address);
    }

    /**
     * A session ended. Without READY from a process now gone (a successor killed while it started), this process
     * takes its doors back and redoes what that successor changed ({@link #onSuccessorLost}). Its process may
     * outlive the session by a moment (it is exiting), so it is watched on the timer for {@link #PEER_EXIT_MILLIS};
     * one still running then ended its session for another reason and may be serving the doors it took: those
     * stay listening, unserved here, for the next instance.
     */
    @Override
    public void sessionEnded(Object session, int peerPid, boolean successor) {
        boolean lent = doors.returned(session);
        // One that only looked (status, the launcher's check) registered nothing with kubelet and took no door:
        // its end is no successor lost (every status call made the DRA driver publish its slices again).
        if (handedOver || !successor || peerPid == ProcessHandle.current().pid()) {
            return;
        }
        watchPeer(session, peerPid, lent, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PEER_EXIT_MILLIS));
    }

    /** How long a successor's process may outlive its ended session and still count as gone. */
    static final long PEER_EXIT_MILLIS = 3_000;

    private void watchPeer(Object session, int pid, boolean lent, long until) {
        if (handedOver) {
            return;
        }
        if (!peerGone(pid)) {
            if (System.nanoTime() - until > 0) {
                if (lent) {
                    LOG.error("the instance pid={} that took doors from this one ended its handover session but still"
                            + " runs: its doors are left listening for it or the next instance", pid);
                }
                return;
            }
            try {
                timer.schedule(() -> watchPeer(session, pid, lent, until), 20, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closed) {
                // closed: nothing to take back any more
            }
            return;
        }
        List<String> back = doors.takeBack(session);
        if (lent) {
            LOG.warn("the successor pid={} died before it was ready: this instance took its doors back ({}) and"
                    + " serves on", pid, back);
        }
        for (Runnable action : successorLostActions) {
            try {
                action.run();
            } catch (RuntimeException e) {
                LOG.error("an onSuccessorLost action failed", e);
            }
        }
    }

    /**
     * Whether the instance at the other end of an ended session is gone. By its pid when {@code SO_PEERCRED} gave
     * one; across PID namespaces (a DaemonSet's pods without {@code hostPID}) it gives 0, and then by the start
     * lock: an instance holds it from its start until it is the writer, so while it takes over from this one; the
     * kernel lets go of it when the process dies. Free (taken and let go at once here) means nobody is starting.
     */
    private boolean peerGone(int pid) {
        if (pid > 0) {
            return ProcessGone.is(pid);
        }
        WriterLock probe = new WriterLock(posix, stateDir.resolve(Protocol.START_LOCK));
        try {
            return probe.tryAcquire();
        } catch (IOException | RuntimeException e) {
            return false;
        } finally {
            probe.close();
        }
    }

    @Override
    public AutoCloseable onSuccessorLost(Runnable action) {
        successorLostActions.add(action);
        return () -> successorLostActions.remove(action);
    }

    @Override
    public void successorReady(Object session) {
        doors.kept(session);
        List<Runnable> run;
        synchronized (this) {
            if (handedOver) {
                return;
            }
            handedOver = true;
            run = List.copyOf(actions);
            actions.clear();
        }
        for (Runnable action : run) {
            try {
                action.run();
            } catch (RuntimeException e) {
                LOG.error("an onHandedOver action failed", e);
            }
        }
        writerLock.close();
        LOG.info("handed over to a successor: this instance allocates and writes nothing more, doors left {}",
                doors.names());
    }

    // ---- the successor's own steps

    /** How often a successor waiting for its doors looks whether its predecessor is still there. */
    static final long PREDECESSOR_WATCH_MILLIS = 100;

    /**
     * While this instance waits to serve every door, its predecessor may stop (a SIGTERM sent too early, as a
     * supervisor that does not wait for the handover does) or die: nobody would hand the state directory over, and
     * this instance would neither write there nor listen for a successor until {@code readyTimeout}, so an instance
     * started meanwhile found no one to take over from. It goes ahead at once instead.
     */
    private void watchPredecessor() {
        PredecessorSession s;
        synchronized (this) {
            s = session;
        }
        if (s == null) {
            return;                                      // handed over already
        }
        if (!s.predecessorGone()) {
            try {
                timer.schedule(this::watchPredecessor, PREDECESSOR_WATCH_MILLIS, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closed) {
                // closed: nothing to watch any more
            }
            return;
        }
        LOG.warn("predecessor pid={} ended before this instance served doors {}: taking the state directory now;"
                + " those doors are bound anew here when their components start", s.pid(), pending);
        predecessorGone = true;
        successorServes();
    }

    private volatile boolean predecessorGone;

    /** Every door taken is served again (or the wait is over): the predecessor hands over, the lock comes here. */
    private void successorServes() {
        PredecessorSession s;
        synchronized (this) {
            s = session;
            session = null;
        }
        if (s == null) {
            return;
        }
        if (!pending.isEmpty() && !predecessorGone) {
            LOG.warn("doors {} of predecessor pid={} not served here after {} ms; handing over without them",
                    pending, s.pid(), readyTimeout.toMillis());
        }
        try {
            s.ready();
            LOG.info("took over from predecessor pid={} in {} ms", s.pid(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos));
        } catch (IOException | RuntimeException e) {
            LOG.warn("predecessor pid={} did not confirm the handover: {}", s.pid(), e.getMessage());
        } finally {
            s.close();
        }
        // The lock first: the predecessor released it with its confirmation (or died), and an instance waiting on
        // the start lock must find this one listening only once it is the writer.
        if (awaitWriterLock(SESSION_TIMEOUT_MILLIS)) {
            listenForSuccessor();
        } else {
            LOG.error("state directory {} still locked {} ms after the handover: listening anyway, writing once it"
                    + " is free", stateDir, SESSION_TIMEOUT_MILLIS);
            listenForSuccessor();
            acquireWriterLock();
        }
    }

    /**
     * Waits (polling) for the start lock, held by an instance that is starting; bounded by the longest a start
     * and takeover may take, after which this one goes ahead (logged).
     */
    private void awaitStartTurn() {
        long limit = readyTimeout.toMillis() + SESSION_TIMEOUT_MILLIS;
        long waitUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(limit);
        boolean told = false;
        while (true) {
            try {
                if (startLock.tryAcquire()) {
                    return;
                }
            } catch (IOException | RuntimeException e) {
                LOG.error("cannot take the start lock {}: {}", stateDir.resolve(Protocol.START_LOCK), e.getMessage());
                return;
            }
            if (System.nanoTime() - waitUntil > 0) {
                LOG.error("another instance has been starting on {} for over {} ms: going ahead", stateDir, limit);
                return;
            }
            if (!told) {
                LOG.info("another instance is starting on this state directory: waiting for it, to take over from it");
                told = true;
            }
            if (!sleep(LOCK_RETRY_MILLIS)) {
                return;
            }
        }
    }

    /** Polls for state.lock up to {@code millis}; true once held (an error taking it counts as held, logged). */
    private boolean awaitWriterLock(long millis) {
        long waitUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (true) {
            try {
                if (writerLock.tryAcquire()) {
                    return true;
                }
            } catch (IOException | RuntimeException e) {
                LOG.error("cannot take the state directory's writer lock: {}", e.getMessage());
                return true;
            }
            if (System.nanoTime() - waitUntil > 0 || !sleep(LOCK_RETRY_MILLIS)) {
                return false;
            }
        }
    }

    private static boolean sleep(long millis) {
        try {
            Thread.sleep(millis);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void listenForSuccessor() {
        synchronized (this) {
            if (listener != null || timer.isShutdown()) {
                return;
            }
            try {
                listener = HandoverListener.listen(posix, stateDir.resolve(Protocol.SOCKET), this);
            } catch (IOException | RuntimeException e) {
                LOG.error("cannot listen for a successor, so none can take over from this instance: {}",
                        e.getMessage());
            }
        }
        synchronized (this) {
            listening = true;
        }
        releaseStartTurn();
    }

    /**
     * This process has started: every door it serves is bound and offered. Only now may the next instance take
     * over from it. The start lock was let go as soon as this one listened, before its doors were bound: an
     * instance started at the same moment took over with no doors to take, and then found them bound by the one
     * it had taken over from (the HTTP port in use, the CNI and Freeflow sockets served by both, and removed with
     * the older one when it stopped).
     */
    void started() {
        synchronized (this) {
            started = true;
        }
        releaseStartTurn();
    }

    /**
     * Declares this process started after {@code bound} at the latest, whatever else happens: with no launcher
     * (a test framework) no announcement comes, and the next instance must still get its turn.
     */
    SocketHandover startedAtTheLatestIn(Duration bound) {
        try {
            timer.schedule(this::started, bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            // Closed already: nothing waits for this instance's turn any more.
        }
        return this;
    }

    /** The next instance to start finds this one listening, its doors offered: both are needed. */
    private void releaseStartTurn() {
        synchronized (this) {
            if (!listening || !started) {
                return;
            }
        }
        startLock.close();
    }

    /** Takes state.lock, waiting (on the timer) while another instance holds it. */
    private void acquireWriterLock() {
        try {
            if (writerLock.tryAcquire()) {
                LOG.debug("state directory {} writer lock held", stateDir);
                return;
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("cannot take the state directory's writer lock: {}", e.getMessage());
            return;
        }
        if (!timer.isShutdown()) {
            timer.schedule(this::acquireWriterLock, LOCK_RETRY_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public boolean tookOver() {
        return tookOver;
    }

    /** True while this instance holds state.lock (the one writer of the state directory) and has not handed over. */
    @Override
    public boolean writer() {
        return writerLock.held() && !handedOver;
    }

    @Override
    public synchronized void close() {
        timer.shutdownNow();
        if (listener != null) {
            listener.close();
            listener = null;
        }
        if (session != null) {
            session.close();
            session = null;
        }
        writerLock.close();
        startLock.close();
        doors.close();
    }
}
