// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.agent.RefusalLog;
import io.rdmanode.freeflow.internal.posix.PeerCred;
import io.rdmanode.freeflow.internal.posix.UnixConnection;
import io.rdmanode.freeflow.internal.posix.UnixServer;
import io.rdmanode.freeflow.internal.wire.Func;
import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Unix socket {@code <dir>/<routerName>} the Freeflow client connects to (a new connection per verb, a
 * persistent one per completion channel). One control loop ({@link ControlLoop}) polls the listening socket and
 * every connection waiting for a request and reads requests without blocking; a complete request goes to a small
 * pool of workers, which execute and answer it and hand the connection back. A GET_CQ_EVENT with no event queued
 * parks on its channel and holds no thread. So no idle, slow or waiting client holds a worker: idle connections
 * cost a descriptor each, bounded per client process and in total ({@link ControlSettings}). Closing stops
 * accepting, closes every connection and removes the socket file.
 *
 * <p>Handover: the predecessor stops accepting and opens a {@link DrainDesk}; the successor, which took the
 * listening socket, passes the connections of the predecessor's tenants back there through a
 * {@link PredecessorLink} (the client opens a new connection per verb, and only the predecessor knows the objects
 * of a tenant that started there). The drain ends when no tenant holds an object here and no connection is open,
 * or at its deadline; the desk closes with it.
 */
public final class ControlServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ControlServer.class);
    private volatile UnixServer server;
    private final Router router;
    private final Dispatcher dispatcher;
    private final ThreadPoolExecutor workers;
    private final ControlLoop loop;
    private final Set<ControlConnection> open = ConcurrentHashMap.newKeySet();
    private final Map<Integer, AtomicInteger> perPid = new ConcurrentHashMap<>();
    /** When each client process last sent a complete request, on any connection (see {@link #quietSince}). */
    private final Map<Integer, Long> lastRequest = new ConcurrentHashMap<>();
    /**
     * Requests that make an object being executed, by client pid: a process whose first object is being made
     * here is claimed (not one whose last is being freed: it is moving on).
     */
    private final Map<Integer, Integer> creating = new ConcurrentHashMap<>();
    private final ScheduledExecutorService reaper;
    private final RefusalLog refusals = new RefusalLog(LOG, Duration.ofMinutes(1));
    final LongAdder idleCuts = new LongAdder();
    /**
     * Bytes held for request bodies still arriving, against {@link #bodyBudget}: a header may declare up to 1 MiB,
     * and thousands of connections that each send some of such a body would otherwise fill the agent's small heap
     * (an OutOfMemoryError ends the whole agent). A body is buffered as its bytes arrive, not as declared.
     */
    private final AtomicLong bodyBytes = new AtomicLong();
    private volatile long bodyBudget = defaultBodyBudget();
    final LongAdder budgetCuts = new LongAdder();
    final LongAdder acceptPauses = new LongAdder();
    final LongAdder parked = new LongAdder();
    /** Successor: connections passed back to the draining predecessor. */
    final LongAdder forwarded = new LongAdder();
    /** Predecessor: its tenants' connections the successor passed back here. */
    final LongAdder takenBack = new LongAdder();
    private volatile PredecessorLink predecessor;
    private volatile DrainDesk desk;
    private final java.util.concurrent.atomic.AtomicBoolean closing = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile ControlSettings settings;
    private ScheduledFuture<?> reaping;
    private long reapIntervalMillis;

    public ControlServer(Path socket, Router router, ControlSettings settings, long reapIntervalMillis) throws IOException {
        this(socket, java.util.OptionalInt.empty(), router, settings, reapIntervalMillis);
    }

    /** @param adopted a predecessor's listening descriptor for {@code socket} (handover), else it is bound anew */
    public ControlServer(Path socket, java.util.OptionalInt adopted, Router router, ControlSettings settings,
                         long reapIntervalMillis) throws IOException {
        Files.createDirectories(socket.getParent());
        this.server = adopted.isPresent() ? UnixServer.adopt(socket, adopted.getAsInt())
                : UnixServer.listen(socket, "rw-rw-rw-");
        this.router = router;
        this.settings = settings;
        this.dispatcher = new Dispatcher(router, this);
        AtomicInteger n = new AtomicInteger();
        this.workers = new ThreadPoolExecutor(settings.workers(), settings.workers(), 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "freeflow-control-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        workers.allowCoreThreadTimeOut(true);
        try {
            this.loop = new ControlLoop(server, this);
        } catch (PosixException e) {
            server.close();
            throw new IOException("freeflow control loop: " + e.getMessage(), e);
        }
        this.reaper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "freeflow-reaper");
            t.setDaemon(true);
            return t;
        });
        reapInterval(reapIntervalMillis);
        // Before the first accept: a tenant of the predecessor must never be served here while it drains.
        if (adopted.isPresent()) {
            this.predecessor = PredecessorLink.connect(socket, this).orElse(null);
        }
        loop.start();
        LOG.info("freeflow router {} on {}", adopted.isPresent() ? "took over the socket" : "listening", socket);
    }

    /** The listening socket as a door a successor can take ({@code Handover.Door}). */
    public io.rdmanode.agent.Handover.Door door() {
        return new io.rdmanode.agent.Handover.Door() {
            @Override
            public int fd() {
                return server.fd();
            }

            @Override
            public void handedOver() {
                loop.stopAccepting();
                openDesk();
                LOG.info("freeflow router socket {} handed to a successor: new clients go there, {} connection(s)"
                        + " and {} tenant(s) with objects stay here until they end", server.path(), open.size(),
                        router.tenantsHoldingObjects());
            }

            @Override
            public boolean takeBack(int fd) {
                return ControlServer.this.acceptAgain(fd);
            }
        };
    }

    /**
     * The successor that took the listening socket died before it served it: this router accepts on it again
     * ({@code fd}, consumed) and closes its drain desk (no successor passes connections back any more).
     */
    private synchronized boolean acceptAgain(int fd) {
        if (closing.get()) {
            Posix.libc().close(fd);
            return false;
        }
        UnixServer taken;
        try {
            taken = UnixServer.adopt(server.path(), fd);
        } catch (IOException e) {
            LOG.error("freeflow router cannot accept on its taken-back socket {}: {}", server.path(), e.getMessage());
            return false;
        }
        closeDesk();
        server = taken;
        loop.acceptAgain(taken);
        LOG.warn("freeflow router socket {} accepts here again: the successor it was handed to died", taken.path());
        return true;
    }

    /** Opens the desk the successor passes this router's tenants' connections back to; logged when it cannot. */
    private void openDesk() {
        try {
            desk = DrainDesk.open(server.path(), this);
        } catch (IOException | RuntimeException e) {
            LOG.warn("freeflow router cannot open its drain desk beside {}: {}; tenants connected here reach the"
                    + " successor with their next verb, where their handles are unknown", server.path(), e.toString());
        }
    }

    /**
     * After a handover: waits until no tenant holds an object here and every connection here has closed (tenants
     * exit, or free everything), and this router's own predecessor (when it took over from one still draining)
     * has ended its drain, or {@code millis} passed; then closes the drain desk (the successor serves every
     * connection from then on). Returns the connections still open.
     */
    public int drain(long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while ((!open.isEmpty() || router.tenantsHoldingObjects() > 0 || linkedToPredecessor())
                && System.nanoTime() < deadline) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        closeDesk();
        return open.size();
    }

    private void closeDesk() {
        DrainDesk d = desk;
        desk = null;
        if (d != null) {
            d.close();
        }
    }

    public boolean handedOver() {
        return loop.acceptingStopped();
    }

    /** A server with default bounds and {@code threads} workers (tests, benchmarks). */
    public ControlServer(Path socket, Router router, int threads, long reapIntervalMillis) throws IOException {
        this(socket, router, ControlSettings.defaults().withWorkers(threads), reapIntervalMillis);
    }

    /** Applies new bounds in place: open connections stay (a lower cap refuses only new ones). */
    public synchronized void settings(ControlSettings s) {
        threads(s.workers());
        this.settings = s;
        loop.wake();
    }

    public ControlSettings settings() {
        return settings;
    }

    /** Resizes the worker pool in place (a smaller pool shrinks as workers finish). */
    public synchronized void threads(int threads) {
        if (threads > workers.getMaximumPoolSize()) {
            workers.setMaximumPoolSize(threads);
            workers.setCorePoolSize(threads);
        } else {
            workers.setCorePoolSize(threads);
            workers.setMaximumPoolSize(threads);
        }
    }

    public int threads() {
        return workers.getMaximumPoolSize();
    }

    /** Checks for exited clients every millis from now on. */
    public synchronized void reapInterval(long millis) {
        if (reaping != null) {
            if (millis == reapIntervalMillis) {
                return;
            }
            reaping.cancel(false);
        }
        reapIntervalMillis = millis;
        reaping = reaper.scheduleWithFixedDelay(this::reap, millis, millis, TimeUnit.MILLISECONDS);
    }

    public synchronized long reapInterval() {
        return reapIntervalMillis;
    }

    public Path socket() {
        return server.path();
    }

    public int openConnections() {
        return open.size();
    }

    /** Open connections by client pid (refused ones not counted). */
    public Map<Integer, Integer> connectionsByPid() {
        Map<Integer, Integer> m = new HashMap<>();
        perPid.forEach((pid, n) -> {
            if (n.get() > 0) {
                m.put(pid, n.get());
            }
        });
        return m;
    }

    public long idleCuts() {
        return idleCuts.sum();
    }

    public long acceptPauses() {
        return acceptPauses.sum();
    }

    /** Connections closed because the request bodies still arriving held more than the budget. */
    public long budgetCuts() {
        return budgetCuts.sum();
    }

    /** Bytes held now for request bodies still arriving. */
    public long bodyBytes() {
        return bodyBytes.get();
    }

    public long bodyBudget() {
        return bodyBudget;
    }

    /** A quarter of the heap, between two maximal bodies and 16 MiB: room for many clients' large posts at once. */
    static long defaultBodyBudget() {
        return Math.max(2L * Dispatcher.MAX_BODY, Math.min(16L << 20, Runtime.getRuntime().maxMemory() / 4));
    }

    /** Tests: a smaller budget. */
    void bodyBudget(long bytes) {
        bodyBudget = bytes;
    }

    /**
     * Charges {@code bytes} more to cc's unfinished body. Past the budget, the connection holding the most (this one
     * or another still sending) is closed until the rest fits: a client that sends little is not cut for one that
     * sends much. False when cc itself was closed. Called by the control loop only.
     */
    boolean charge(ControlConnection cc, int bytes) {
        cc.charged.addAndGet(bytes);
        long held = bodyBytes.addAndGet(bytes);
        while (held > bodyBudget && !cc.closed()) {
            ControlConnection largest = cc;
            for (ControlConnection o : open) {
                if (o.charged.get() > largest.charged.get()) {
                    largest = o;
                }
            }
            budgetCuts.increment();
            refusals.warn("freeflow-body-budget", "freeflow closed the control connection of pid {}: request bodies"
                    + " still arriving held {} bytes, over the budget of {} bytes, and it held the most ({} bytes)",
                    largest.pid(), held, bodyBudget, largest.charged.get());
            close(largest);
            held = bodyBytes.get();
        }
        return !cc.closed();
    }

    /** The body is complete (or the connection closed): its bytes leave the budget. */
    private void uncharge(ControlConnection cc) {
        int n = cc.charged.getAndSet(0);
        if (n != 0) {
            bodyBytes.addAndGet(-n);
        }
    }

    /** Connections this successor passed back to its draining predecessor. */
    public long forwardedToPredecessor() {
        return forwarded.sum();
    }

    /** Connections of this draining router's tenants that its successor passed back here. */
    public long takenBackFromSuccessor() {
        return takenBack.sum();
    }

    /** True while connections go back to a draining predecessor. */
    public boolean linkedToPredecessor() {
        PredecessorLink p = predecessor;
        return p != null && p.open();
    }

    /** GET_CQ_EVENT requests parked so far (answered later, without a thread). */
    public long parkedEvents() {
        return parked.sum();
    }

    private void reap() {
        try {
            router.reap();
        } catch (RuntimeException e) {
            LOG.error("freeflow reaper failed", e);
        }
    }

    // ---- called by the loop and the handover's link and desk

    /** A fresh connection of a tenant of the draining predecessor goes back there (asked off the loop). */
    boolean passToPredecessor(UnixConnection c) {
        PredecessorLink p = predecessor;
        return p != null && p.offer(c);
    }

    /** A connection the predecessor did not take: served here, as if just accepted. */
    void serveHere(UnixConnection c) {
        if (closing.get()) {
            c.close();
            return;
        }
        loop.arrive(c);
    }

    /**
     * Whether who's process is a tenant here that holds objects (or is making one: its first may be in the
     * making), or is one of this router's own draining predecessor (a chain of drains). A live process that holds
     * nothing here loses nothing by moving on to the successor: the drain does not wait for it either.
     */
    boolean claims(PeerCred who) {
        if (creating.containsKey(who.pid()) ? router.servesTenant(who) : router.holdsObjects(who)) {
            return true;
        }
        PredecessorLink p = predecessor;
        return p != null && p.claims(who);
    }

    /**
     * Whether who's process holds an object here. The idle timeout is for a client that connected and neither asks
     * nor holds anything; a quiet connection of one that holds objects is part of its session (the genuine
     * librdmacm keeps a pool of connections from its start and writes to any of them much later, without
     * MSG_NOSIGNAL: a cut one kills it with SIGPIPE). Such a process's connections stay bounded by
     * {@code maxConnectionsPerTenant} and close with it.
     */
    boolean holdsObjects(PeerCred who) {
        return router.holdsObjects(who);
    }

    /**
     * When the connection's process was last heard from: its last request on any connection, or this connection's
     * own last activity if later. The idle clock is the process's: the genuine librdmacm opens its pool before its
     * first object (rdma_create_event_channel connects, then opens the verbs devices, then creates the channel),
     * so a pool connection is quiet while its process is busy on others.
     */
    long quietSince(ControlConnection cc) {
        return Math.max(cc.lastActivityNanos, lastRequest.getOrDefault(cc.pid(), Long.MIN_VALUE));
    }

    /** A connection of one of this router's tenants, passed back by the successor: it joins the loop unread. */
    void takeBack(int fd) {
        UnixConnection c;
        try {
            c = UnixConnection.adopt(fd);
        } catch (IOException e) {
            LOG.debug("freeflow connection passed back by the successor: {}", e.getMessage());
            return;
        }
        if (!closing.get() && router.servesTenant(c.peer())) {
            takenBack.increment();
            loop.arrive(c);
            return;
        }
        PredecessorLink p = predecessor;
        if (!closing.get() && p != null && p.hand(c)) {
            takenBack.increment();                   // relayed: a tenant of the router before this one
            return;
        }
        LOG.debug("freeflow connection of pid {} passed back after its tenant ended: closed", c.peer().pid());
        c.close();
    }

    /** A new connection: counted for its process; past the process's cap it is only answered EAGAIN. */
    ControlConnection admit(UnixConnection c) {
        ControlSettings s = settings;
        try {
            c.sendTimeout(s.writeTimeoutMillis());
        } catch (PosixException e) {
            LOG.debug("freeflow SO_SNDTIMEO for pid {}: {}", c.peer().pid(), e.getMessage());
        }
        router.stats().connections.increment();
        int pid = c.peer().pid();
        AtomicInteger n = perPid.computeIfAbsent(pid, p -> new AtomicInteger());
        boolean over = n.incrementAndGet() > s.maxConnectionsPerTenant();
        if (over) {
            n.decrementAndGet();
            router.refuseConnection(c.peer(), s.maxConnectionsPerTenant());
        }
        ControlConnection cc = new ControlConnection(c, over);
        open.add(cc);
        return cc;
    }

    /** The loop stops accepting at the total cap (clients wait in the backlog); logged once a minute. */
    void atCapacity(int limit) {
        acceptPauses.increment();
        refusals.warn("freeflow-capacity", "freeflow control socket at its limit of {} connections: new clients"
                + " wait in the listen backlog until one closes", limit);
    }

    /** A complete request read: a worker executes and answers it. */
    void dispatch(ControlConnection cc) {
        uncharge(cc);
        int pid = cc.pid();
        lastRequest.put(pid, System.nanoTime());
        boolean creates = cc.request != null && Func.creates(cc.request.func());
        if (creates) {
            creating.merge(pid, 1, Integer::sum);
        }
        try {
            workers.execute(() -> {
                Dispatcher.Outcome outcome;
                try {
                    outcome = dispatcher.handle(cc);
                } finally {
                    if (creates) {
                        created(pid);
                    }
                }
                switch (outcome) {
                    case RESUME -> resume(cc);
                    case CLOSE -> close(cc);
                    case PARKED -> parked.increment();
                }
            });
        } catch (RejectedExecutionException stopped) {
            if (creates) {
                created(pid);
            }
            close(cc);
        }
    }

    private void created(int pid) {
        creating.computeIfPresent(pid, (p, n) -> n <= 1 ? null : n - 1);
    }

    /** Back to the loop for the next request on the same connection. */
    void resume(ControlConnection cc) {
        cc.next();
        loop.resume(cc);
    }

    void close(ControlConnection cc) {
        if (cc.markClosed()) {
            uncharge(cc);
            cc.conn.close();
            open.remove(cc);
            if (!cc.refused) {
                AtomicInteger n = perPid.get(cc.pid());
                if (n != null && n.decrementAndGet() <= 0) {
                    perPid.remove(cc.pid(), n);
                    lastRequest.remove(cc.pid());
                }
            }
            loop.wake();
        }
    }

    /** A parked GET_CQ_EVENT's answer, written by a worker (the caller holds the router's lock). */
    void answerLater(ControlConnection cc, Runnable answer) {
        try {
            workers.execute(answer);
        } catch (RejectedExecutionException stopped) {
            close(cc);
        }
    }

    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return; // closed already (a test, or a stop after a drain that closed it)
        }
        PredecessorLink p = predecessor;
        if (p != null) {
            p.close();
        }
        closeDesk();
        loop.stop();
        try {
            server.close();
        } catch (IOException e) {
            LOG.warn("cannot remove {}: {}", server.path(), e.toString());
        }
        reaper.shutdownNow();
        for (ControlConnection c : open) {
            c.conn.shutdown();
        }
        workers.shutdownNow();
        try {
            if (!workers.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("freeflow control workers still busy after 5 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (ControlConnection c : open) {
            close(c);
        }
        LOG.info("freeflow router stopped listening on {}", server.path());
    }
}
