// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.rdmanode.kubelet.DevicePlugin;
import io.rdmanode.kubelet.DevicePluginException;
import io.rdmanode.kubelet.DevicePluginHost;
import io.rdmanode.kubelet.ResourceFigures;
import io.rdmanode.kubelet.ServedResource;
import java.io.IOException;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device-plugin host as a plain class: shared transport, a registrar that serves sockets again and
 * (re-)registers every resource in parallel (one slow or closing resource never holds up the others), the
 * directory watch that wakes it, and a periodic safety-net check. Timeouts and the resync interval can be
 * changed while serving ({@link #retune}); directories and the registration mode are fixed for its life, but for
 * {@code auto}'s one fallback from the plugin watcher to classic registration ({@link AutoRegistration}).
 */
public final class KubeletDevicePluginHost implements DevicePluginHost, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KubeletDevicePluginHost.class);
    private static final long FIRST_RETRY_MILLIS = 50;

    private final HostSettings resolved;                 // directories and mode as resolved at start: the identity
    private volatile HostSettings settings;              // the same, with auto's fallback applied
    private volatile HostSettings tuning;                // the same plus the current timeouts
    private final AutoRegistration mode;
    private final Object modeLock = new Object();        // a server is built in one mode and moved with the rest
    private final ExecutorService rpc;
    private final ScheduledExecutorService registrar;    // timers only: the work runs on `workers`
    private final ExecutorService workers;
    private final HostBounds bounds;
    private final TransportRefusals transportRefusals = new TransportRefusals();
    private volatile ScheduledFuture<?> resync;
    private final UdsTransport transport;
    private volatile PluginDirWatcher watcher;
    private final Map<String, DevicePluginServer> servers = new ConcurrentSkipListMap<>();
    private final AtomicBoolean reconcilePending = new AtomicBoolean();
    private volatile Optional<String> problem;
    private volatile boolean closed;
    private final String instance;
    private volatile boolean handedOver;

    /**
     * The device-plugins directory belongs to kubelet and is not created here; while it is missing, plugins
     * wait (and are served and registered once it appears).
     *
     * @throws IOException when no file watch can be created
     */
    public KubeletDevicePluginHost(HostSettings settings) throws IOException {
        this(settings, CallLimits.DEFAULTS);
    }

    /**
     * @param limits bounds on the calls every server admits; the RPC threads are sized from them
     * @throws IOException when no file watch can be created
     */
    public KubeletDevicePluginHost(HostSettings settings, CallLimits limits) throws IOException {
        this(settings, limits, InstanceTags.nextAfter(InstanceTags.newestIn(settings.resolved().socketDir())));
    }

    /**
     * @param instance the tag in this host's socket names ({@link InstanceTags}), so that a second agent instance
     *                 on the same directory (a successor, a surge upgrade) serves and removes only its own
     * @throws IOException when no file watch can be created
     */
    public KubeletDevicePluginHost(HostSettings settings, CallLimits limits, String instance) throws IOException {
        this.resolved = settings.resolved();
        this.settings = resolved;
        this.tuning = resolved;
        this.mode = new AutoRegistration(settings, resolved);
        this.instance = instance;
        LOG.info("device-plugin host registration={} sockets in {} instance={}", mode.describe(),
                resolved.socketDir(), instance);
        this.problem = ResourceNames.socketDirProblem(this.settings.socketDir());
        problem.ifPresent(p -> LOG.error("cannot serve device plugins: {}", p));
        if (problem.isEmpty()) {
            StaleSockets.clean(this.settings.socketDir());
        }
        // Bounded threads; the queue holds only what admitted calls and streams opening post (each connection
        // opens at most callsPerResource + streamsPerResource streams at once, refused ones end at once).
        ThreadPoolExecutor handlers = new ThreadPoolExecutor(limits.rpcThreads(), limits.rpcThreads(), 30,
                TimeUnit.SECONDS, new LinkedBlockingQueue<>(), named("rdma-agent-kubelet-rpc-"));
        handlers.allowCoreThreadTimeOut(true);           // idle threads (and their stacks) go
        this.rpc = handlers;
        ScheduledThreadPoolExecutor timers = new ScheduledThreadPoolExecutor(1, named("rdma-agent-kubelet-registrar"));
        timers.setRemoveOnCancelPolicy(true);            // every answered call cancels its deadline
        this.registrar = timers;
        this.bounds = new HostBounds(limits, registrar);
        this.workers = Executors.newCachedThreadPool(named("rdma-agent-kubelet-register-"));
        this.transport = new UdsTransport(this.settings.ioThreads(), "rdma-agent-kubelet-io", rpc);
        if (problem.isEmpty() && !Boolean.getBoolean("rdma.agent.kubelet.noWarmup")) {
            workers.execute(() -> KubeletConnectionWarmup.connect(transport, this.settings.kubeletSocket()));
        }
        this.watcher = new PluginDirWatcher(this.settings.socketDir(), this::reconcileAllSoon);
        watcher.start();
        this.resync = scheduleResync(this.settings.resyncInterval());
    }

    private ScheduledFuture<?> scheduleResync(long interval) {
        return registrar.scheduleWithFixedDelay(this::reconcileAll, interval, interval, TimeUnit.MILLISECONDS);
    }

    /**
     * Applies new timeouts and resync interval in place: no socket is closed and nothing registers again. Only
     * the fields that {@link HostSettings#sameSockets} leaves out may differ from the running settings.
     *
     * @return false, changing nothing, when the directories, kubelet socket, mode or I/O threads differ (the
     *         host must be rebuilt)
     */
    public boolean retune(HostSettings next) {
        HostSettings nextResolved = next.resolved();
        if (!resolved.sameSockets(nextResolved)) {
            return false;
        }
        HostSettings before = tuning;
        synchronized (modeLock) {
            tuning = nextResolved.with(settings.registration());
        }
        if (before.resyncInterval() != nextResolved.resyncInterval()) {
            resync.cancel(false);
            resync = scheduleResync(nextResolved.resyncInterval());
        }
        LOG.info("device-plugin host retuned registrationTimeout={}ms shutdownTimeout={}ms resyncInterval={}ms",
                nextResolved.registrationTimeout(), nextResolved.shutdownTimeout(), nextResolved.resyncInterval());
        return true;
    }

    UdsTransport transport() {
        return transport;
    }

    HostSettings tuning() {
        return tuning;
    }

    @Override
    public ServedResource serve(DevicePlugin plugin) {
        String resource = plugin.resourceName();
        ResourceNames.problem(resource).ifPresent(p -> {
            throw new IllegalArgumentException(p);
        });
        DevicePluginServer server;
        synchronized (modeLock) {
            Optional<String> unservable = problem;
            if (unservable.isPresent()) {
                throw new DevicePluginException(DevicePluginException.Code.UNAVAILABLE, resource,
                        "cannot serve resource " + resource + ": " + unservable.get());
            }
            server = new DevicePluginServer(plugin, this::tuning, transport, bounds, instance,
                    () -> servers.remove(resource), s -> submit(() -> reconcile(s), 0), () -> handedOver,
                    () -> getInfoCalled(resource));
            if (servers.putIfAbsent(resource, server) != null) {
                throw new IllegalArgumentException("resource " + resource + " is already served");
            }
            try {
                server.start();
            } catch (DevicePluginException e) {
                servers.remove(resource, server);
                throw e;
            }
        }
        LOG.info("serving resource={} socket={}", resource, server.socket());
        if (mode.startProbe()) {
            submit(this::getInfoDeadlinePassed, mode.deadline().toMillis());
        }
        submit(() -> reconcile(server), 0);
        return server;
    }

    private void getInfoCalled(String resource) {
        if (mode.getInfoCalled(resource)) {
            LOG.info("device-plugin host registration={}", mode.describe());
        }
    }

    /**
     * {@code auto} on probation and no kubelet asked any socket for its info: nobody watches the registry
     * directory. Every server moves to the device-plugins directory and registers through kubelet.sock.
     */
    private void getInfoDeadlinePassed() {
        List<DevicePluginServer> moving;
        HostSettings classic;
        synchronized (modeLock) {
            if (closed || !mode.deadlinePassed()) {
                return;
            }
            classic = settings.with(HostSettings.Registration.CLASSIC);
            settings = classic;
            tuning = tuning.with(HostSettings.Registration.CLASSIC);
            problem = ResourceNames.socketDirProblem(classic.socketDir());
            problem.ifPresent(p -> LOG.error("cannot serve device plugins: {}", p));
            if (problem.isEmpty()) {
                StaleSockets.clean(classic.socketDir());
            }
            moving = List.copyOf(servers.values());
            LOG.warn("device-plugin host registration={}: no kubelet watches {}; every pool registers through {}",
                    mode.describe(), resolved.registryDir(), classic.kubeletSocket());
            watch(classic.socketDir());
        }
        for (DevicePluginServer server : moving) {
            submit(() -> {
                server.moveTo(classic);
                reconcile(server);
            }, 0);
        }
    }

    private void reconcileAllSoon() {
        if (reconcilePending.compareAndSet(false, true)) {
            submit(() -> {
                reconcilePending.set(false);
                reconcileAll();
            }, 0);
        }
    }

    /** Every server on its own worker: a Register waiting on kubelet delays no other resource. */
    private void reconcileAll() {
        servers.values().forEach(server -> submit(() -> reconcile(server), 0));
    }

    private void reconcile(DevicePluginServer server) {
        try {
            if (!server.reconcileCoalesced()) {
                long delay = Math.min(tuning.resyncInterval(),
                        FIRST_RETRY_MILLIS << Math.min(server.failureStreak(), 10));
                submit(() -> reconcile(server), delay);
            }
        } catch (RuntimeException e) {
            LOG.error("registration check failed resource={}", server.resourceName(), e);
        }
    }

    private void submit(Runnable task, long delayMillis) {
        try {
            if (delayMillis <= 0) {
                workers.execute(task);
            } else {
                registrar.schedule(() -> submit(task, 0), delayMillis, TimeUnit.MILLISECONDS);
            }
        } catch (RejectedExecutionException e) {
            LOG.debug("host stopping; registration check dropped");
        }
    }

    /** Watches {@code dir} instead of the directory watched so far. */
    private void watch(java.nio.file.Path dir) {
        try {
            PluginDirWatcher next = new PluginDirWatcher(dir, this::reconcileAllSoon);
            PluginDirWatcher before = watcher;
            watcher = next;
            before.close();
            next.start();
        } catch (IOException e) {
            LOG.error("cannot watch {}: re-registration after a kubelet restart waits for the resync every {} ms",
                    dir, tuning.resyncInterval(), e);
        }
    }

    /**
     * This agent handed over to a successor (the launcher's {@code Handover}): kubelet serves every resource from
     * the successor's sockets, so this host never serves or registers again (a kubelet restart would otherwise
     * make it take resources back); its servers answer what still reaches them until they close, and closing
     * removes only this instance's sockets.
     */
    public void handedOver() {
        if (!handedOver) {
            handedOver = true;
            servers.values().forEach(DevicePluginServer::markHandedOver);
            LOG.info("device-plugin host instance={} handed over: registers nothing from now on", instance);
        }
    }

    /**
     * An instance that began to take over from this agent died before it was ready: every resource it registered
     * is registered here again ({@link DevicePluginServer#successorLost}).
     */
    public void successorLost() {
        if (!handedOver) {
            servers.values().forEach(DevicePluginServer::successorLost);
        }
    }

    /** The tag in this host's socket names. */
    public String instance() {
        return instance;
    }

    /** The socket {@code resource} is served on by this host, if it serves it. */
    public Optional<java.nio.file.Path> socketOf(String resource) {
        return Optional.ofNullable(servers.get(resource)).map(DevicePluginServer::socket);
    }

    /**
     * Waits until every server served now has had its first registration attempt ({@link
     * io.rdmanode.agent.StartupBarrier}); false when {@code timeout} passed first.
     */
    public boolean awaitFirstRegistrations(java.time.Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (DevicePluginServer server : servers.values()) {
            if (!server.awaitFirstAttempt(deadline - System.nanoTime())) {
                return false;
            }
        }
        return true;
    }

    /** The servers running now, sorted by resource name. */
    List<DevicePluginServer> servers() {
        return List.copyOf(servers.values());
    }

    @Override
    public List<ResourceFigures> figures() {
        return servers.values().stream().map(DevicePluginServer::figures).toList();
    }

    /** The {@code /status} view: directory, kubelet socket and every served resource. */
    public Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>();
        HostSettings now = settings;
        m.put("registration", mode.describe());
        m.put("socketDir", now.socketDir().toString());
        m.put("instance", instance);
        problem.ifPresent(p -> m.put("error", p));
        if (!now.watcher()) {
            m.put("kubeletSocket", settings.kubeletSocket().toString());
            m.put("kubeletSocketPresent", kubeletPresent());
        }
        m.put("resources", servers.values().stream().map(DevicePluginServer::status).toList());
        return m;
    }

    /** Classic mode: kubelet.sock exists. Watcher mode: a refusal from kubelet would say otherwise. */
    public boolean kubeletPresent() {
        return settings.watcher() || Files.exists(settings.kubeletSocket());
    }

    public boolean watcherMode() {
        return settings.watcher();
    }

    /** How the host registers and, for {@code auto}, how that was decided. */
    AutoRegistration registration() {
        return mode;
    }

    HostSettings settings() {
        return settings;
    }

    public java.nio.file.Path kubeletSocket() {
        return settings.kubeletSocket();
    }

    /** Resources not registered now, each with its last error; empty when all are. */
    public Map<String, String> unregistered() {
        Map<String, String> m = new LinkedHashMap<>();
        servers.values().stream().filter(s -> !s.registered())
                .forEach(s -> m.put(s.resourceName(), s.lastError().isEmpty() ? "not registered yet" : s.lastError()));
        return m;
    }

    /** Watcher mode: resources kubelet refused (or that cannot be served while the directory exists). */
    public Map<String, String> refused() {
        Map<String, String> m = new LinkedHashMap<>();
        if (Files.isDirectory(settings.socketDir())) {
            servers.values().stream().filter(s -> !s.registered() && !s.lastError().isEmpty())
                    .forEach(s -> m.put(s.resourceName(), s.lastError()));
        }
        return m;
    }

    /** Why no plugin can be served (the socket directory is too long for {@code sun_path}); empty when fine. */
    public Optional<String> problem() {
        return problem;
    }

    /**
     * Stops every server (each bounded by the shutdown timeout, Register calls in flight cancelled), the watch,
     * the registrar and the event loops.
     */
    @Override
    public void close() {
        synchronized (modeLock) {
            closed = true;                               // no fallback swaps the watch from now on
        }
        watcher.close();
        registrar.shutdownNow();
        List.copyOf(servers.values()).forEach(DevicePluginServer::close);
        workers.shutdownNow();
        long timeout = tuning.shutdownTimeout();
        try {
            workers.awaitTermination(timeout, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        rpc.shutdown();
        transport.close(timeout);
        rpc.shutdownNow();
        transportRefusals.close();
    }

    private static ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix.endsWith("-") ? prefix + n.incrementAndGet() : prefix);
            t.setDaemon(true);
            return t;
        };
    }
}
