// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.StatusRuntimeException;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePlugin;
import io.rdmanode.kubelet.DevicePluginException;
import io.rdmanode.kubelet.ResourceFigures;
import io.rdmanode.kubelet.ServedResource;
import io.rdmanode.kubelet.internal.v1beta1.RegisterRequest;
import io.rdmanode.kubelet.internal.v1beta1.RegistrationGrpc;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One resource's gRPC server: owns the socket file, the registration with kubelet, serving again and
 * re-registering after a kubelet restart, and bounded shutdown. {@link #reconcileCoalesced()} runs on the host's
 * registrar threads, one call at a time per server (servers register in parallel); {@link #devicesChanged()}
 * and {@link #close()} may come from any thread. Closing cancels a {@code Register} call in flight.
 */
final class DevicePluginServer implements ServedResource {

    static final String API_VERSION = "v1beta1";
    private static final Logger LOG = LoggerFactory.getLogger(DevicePluginServer.class);

    /** How long an older instance leaves a resource to a newer one after both lost their sockets. */
    static final long NEWER_INSTANCE_GRACE_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final DevicePlugin plugin;
    private final String resource;
    private final Supplier<HostSettings> tuning;        // timeouts may change while serving (@Modified)
    private volatile HostSettings settings;             // directories and mode: changed once at most (moveTo)
    private final UdsTransport transport;
    private volatile Path socket;
    private final Runnable onClose;
    private final Runnable onGetInfo;
    private final String instance;
    private final java.util.function.Consumer<DevicePluginServer> reconcileSoon;
    private final java.util.function.BooleanSupplier handedOver;
    private final HostBounds bounds;
    private final RequestSizeLimit requestLimit;
    private final ResourceStats stats = new ResourceStats();
    private final Object lock = new Object();          // guards server, socketId, registeredWith
    private final Object pushLock = new Object();      // orders device-list reads with their sends
    private Server server;
    private volatile ListAndWatchStreams streams;      // replaced under lock, read without it
    private Optional<String> socketId = Optional.empty();
    private Optional<String> registeredWith = Optional.empty();
    private volatile boolean registered;
    private volatile boolean closed;
    private volatile String lastError = "";
    private volatile ManagedChannel inFlight;          // the Register call's channel, cancelled by close()
    private final AtomicInteger reconcileRequests = new AtomicInteger();
    /** Open until the first reconcile (the first registration attempt, accepted or not) has run, or the close. */
    private final java.util.concurrent.CountDownLatch firstAttempt = new java.util.concurrent.CountDownLatch(1);
    private volatile int failureStreak;
    /** The newest tag of a newer instance whose socket for this resource was seen in the directory, or null. */
    private volatile String newerSeen;
    private volatile long newerAwaitedSince;          // System.nanoTime() when the wait began; 0 when none
    /** Tags of newer instances known dead (a successor killed before it was ready): their sockets are ignored. */
    private final Set<String> lostInstances = ConcurrentHashMap.newKeySet();

    /**
     * @param instance      this agent instance's tag: the socket is named from the resource and the tag
     * @param reconcileSoon asks the host to run {@link #reconcileCoalesced()} on a registrar thread
     * @param onGetInfo     called when kubelet's plugin watcher asks this socket for its info (watcher mode)
     */
    DevicePluginServer(DevicePlugin plugin, Supplier<HostSettings> tuning, UdsTransport transport,
                       HostBounds bounds, String instance, Runnable onClose,
                       java.util.function.Consumer<DevicePluginServer> reconcileSoon,
                       java.util.function.BooleanSupplier handedOver, Runnable onGetInfo) {
        this.plugin = plugin;
        this.resource = plugin.resourceName();
        this.tuning = tuning;
        this.settings = tuning.get();
        this.transport = transport;
        this.instance = instance;
        this.socket = settings.socketDir().resolve(ResourceNames.socketFileName(resource, instance));
        this.onClose = onClose;
        this.onGetInfo = onGetInfo;
        this.reconcileSoon = reconcileSoon;
        this.handedOver = handedOver;
        this.bounds = bounds;
        this.requestLimit = new RequestSizeLimit(bounds.limits().messageCeiling());
    }

    /**
     * Binds the socket and starts serving; registration follows on the registrar thread. Without the
     * device-plugins directory (kubelet not installed or not started yet) the server waits for it.
     */
    void start() {
        synchronized (lock) {
            try {
                bind();
            } catch (IOException e) {
                if (Files.isDirectory(settings.socketDir())) {
                    throw new DevicePluginException(DevicePluginException.Code.UNAVAILABLE, resource,
                            "cannot serve resource " + resource + " on " + socket + ": " + e.getMessage(), e);
                }
                server = null;
                failed("directory " + settings.socketDir() + " missing; waiting for it");
            }
        }
        devicesChanged();
    }

    /**
     * {@link #reconcile()}, never twice at once for this server: a call that arrives while one runs makes the
     * running one go round again (after a kubelet restart the watch fires for every file it touched) and
     * returns at once. Returns false when a retry is needed soon.
     */
    boolean reconcileCoalesced() {
        if (reconcileRequests.getAndIncrement() != 0) {
            return true;
        }
        int requests = 1;
        boolean done;
        try {
            do {
                done = reconcile();
                requests = reconcileRequests.addAndGet(-requests);
            } while (requests != 0);
        } finally {
            firstAttempt.countDown();
        }
        return done;
    }

    /**
     * Waits until this server's first registration attempt has run (registered, refused, kubelet absent) or it
     * closed; false when {@code timeoutNanos} passed first.
     */
    boolean awaitFirstAttempt(long timeoutNanos) throws InterruptedException {
        return firstAttempt.await(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Serves again when the socket is gone and registers when kubelet's socket is new or registration failed.
     * Returns false when a retry is needed soon.
     */
    private boolean reconcile() {
        if (!settings.watcher() && !handedOver.getAsBoolean()) {
            noteNewerInstances();
        }
        Optional<String> kubelet;
        synchronized (lock) {
            if (closed) {
                return true;
            }
            if (handedOver.getAsBoolean()) {
                // A successor serves every resource now: never serve or register again (after a kubelet restart
                // that would take the resource back from it); what is bound keeps answering late calls.
                return true;
            }
            boolean socketGone = socketId.isEmpty() || !socketId.equals(SocketIdentity.of(socket));
            if (settings.watcher()) {
                return reconcileWatched(socketGone);
            }
            kubelet = SocketIdentity.of(settings.kubeletSocket());
            boolean kubeletNew = kubelet.isPresent() && !kubelet.equals(registeredWith);
            if (socketGone || (kubeletNew && registeredWith.isPresent())) {
                if (kubeletNew && registeredWith.isPresent()) {
                    stats.kubeletRestarts.increment();
                }
                // A 1.26 kubelet drops a new endpoint when the old endpoint's stream ends afterwards:
                // end the old server before registering again.
                // Once per episode: while binding fails (the plugin directory missing until kubelet is installed)
                // every retry comes here again, and the failure itself is logged once.
                if (failureStreak == 0) {
                    LOG.info("serving again resource={} reason={}", resource,
                            socketGone ? "socket " + socket + " was removed" : "kubelet restarted");
                } else {
                    LOG.debug("serving again resource={} (attempt {})", resource, failureStreak + 1);
                }
                registered = false;
                registeredWith = Optional.empty();
                stopServer();
                try {
                    bind();
                } catch (IOException e) {
                    return failed("cannot serve on " + socket + ": " + e.getMessage());
                }
            }
            if (kubelet.isEmpty()) {
                if (registered) {
                    LOG.warn("kubelet socket gone resource={} socket={}", resource, settings.kubeletSocket());
                }
                registered = false;
                registeredWith = Optional.empty();
                return true;                             // the file watch calls again when kubelet is back
            }
            if (!kubeletNew && registered) {
                return true;
            }
        }
        if (newerInstanceServes()) {
            // A surge pod's agent registered the resource after this one: registering again would take it back.
            registered = false;
            newerAwaitedSince = 0;
            lastError = "a newer agent instance serves " + resource;
            LOG.info("resource={} not registered again: a newer agent instance serves it", resource);
            return true;
        }
        if (awaitingNewerInstance()) {
            return false;                                // looked at again in FIRST_RETRY_MILLIS
        }
        return register();
    }

    /**
     * A kubelet restart deletes every socket, a newer instance's with ours, and each instance serves again on its
     * own: an older instance that registered in the instant before the newer one served again would take the
     * resource back for good (nothing tells the newer one). So an instance that saw a newer one's socket for this
     * resource gives it {@link #NEWER_INSTANCE_GRACE_NANOS} to serve again before registering itself: that
     * newer instance may have died meanwhile, and the resource must not stay without an endpoint.
     */
    private boolean awaitingNewerInstance() {
        String newer = newerSeen;
        if (newer == null) {
            return false;
        }
        long now = System.nanoTime();
        if (newerAwaitedSince == 0) {
            newerAwaitedSince = now;
            LOG.info("resource={} waits up to {} ms for newer agent instance {} to serve it again before registering",
                    resource, NEWER_INSTANCE_GRACE_NANOS / 1_000_000, newer);
        }
        if (now - newerAwaitedSince < NEWER_INSTANCE_GRACE_NANOS) {
            lastError = "waiting for newer agent instance " + newer + " to serve " + resource + " again";
            return true;
        }
        LOG.warn("resource={} newer agent instance {} did not serve it again within {} ms: registering this one",
                resource, newer, NEWER_INSTANCE_GRACE_NANOS / 1_000_000);
        newerSeen = null;
        newerAwaitedSince = 0;
        return false;
    }

    /** The newest newer instance seen serving this resource, until it failed to serve again in time. */
    Optional<String> newerInstanceSeen() {
        return Optional.ofNullable(newerSeen);
    }

    /**
     * Remembers the newest tag among newer instances' socket files for this resource, live or not yet, leaving out
     * (and forgetting) instances that handed over.
     */
    private void noteNewerInstances() {
        for (NewerSocket newer : newerSockets()) {
            if (newer.handedOver()) {
                if (newer.tag().equals(newerSeen)) {
                    newerSeen = null;                    // it handed over (to this instance, or to one newer still)
                    newerAwaitedSince = 0;
                }
            } else if (newerSeen == null || InstanceTags.newer(newer.tag(), newerSeen)) {
                newerSeen = newer.tag();
            }
        }
    }

    /** A socket file of a newer instance of this agent for this server's resource, live or not. */
    private record NewerSocket(Path file, String tag, boolean handedOver) { }

    /** The socket files of newer instances for this resource in the socket directory: one listing. */
    private List<NewerSocket> newerSockets() {
        Optional<String> part = ResourceNames.resourcePartOf(socket.getFileName().toString());
        if (part.isEmpty()) {
            return List.of();
        }
        List<NewerSocket> newer = new ArrayList<>();
        try (java.nio.file.DirectoryStream<Path> files = Files.newDirectoryStream(settings.socketDir(),
                ResourceNames.SOCKET_PREFIX + "*" + ResourceNames.SOCKET_SUFFIX)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                if (part.equals(ResourceNames.resourcePartOf(name))) {
                    ResourceNames.instanceOf(name).filter(t -> InstanceTags.newer(t, instance))
                            .filter(t -> !lostInstances.contains(t))
                            .ifPresent(tag -> newer.add(new NewerSocket(file, tag, handedOverSocket(file))));
                }
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            LOG.debug("cannot list {}: {}", settings.socketDir(), e.getMessage());
        }
        return newer;
    }

    /**
     * Plugin-watcher mode: kubelet finds the socket itself and reports through NotifyRegistrationStatus; a
     * kubelet restart re-discovers it. Only a removed socket needs action.
     */
    private boolean reconcileWatched(boolean socketGone) {
        if (!socketGone) {
            return true;
        }
        LOG.info("serving again resource={} reason=socket {} was removed", resource, socket);
        registered = false;
        stopServer();
        try {
            bind();
            return true;
        } catch (IOException e) {
            return failed("cannot serve on " + socket + ": " + e.getMessage());
        }
    }

    /**
     * Serves from {@code next}'s socket directory in {@code next}'s mode from now on (auto's fallback from the
     * plugin watcher to classic registration): the socket in the old directory goes, which for a plugin watcher
     * means deregistered; the host registers the new one.
     */
    void moveTo(HostSettings next) {
        synchronized (lock) {
            if (closed || settings.identity().equals(next.identity())) {
                return;
            }
            stopServer();
            registered = false;
            registeredWith = Optional.empty();
            settings = next;
            socket = next.socketDir().resolve(ResourceNames.socketFileName(resource, instance));
            try {
                bind();
                lastError = "";
            } catch (IOException e) {
                server = null;
                failed("cannot serve on " + socket + ": " + e.getMessage());
            }
        }
        LOG.info("serving resource={} socket={} registration={}", resource, socket, next.registration());
    }

    /** kubelet's plugin watcher reported its verdict on our socket. */
    private void watcherStatus(boolean accepted, String error) {
        if (closed) {
            return;
        }
        registered = accepted;
        if (accepted) {
            stats.registrations.increment();
            failureStreak = 0;
            lastError = "";
            LOG.info("registered resource={} endpoint={} via plugin watcher", resource, socket);
        } else {
            stats.registrationFailures.increment();
            lastError = "kubelet's plugin watcher refused " + socket + ": " + error;
            LOG.warn("resource={} {}", resource, lastError);
        }
    }

    private boolean register() {
        ManagedChannel channel = transport.dial(settings.kubeletSocket());
        inFlight = channel;
        try {
            if (closed) {
                return true;                           // close() came between the check and the dial
            }
            RegisterRequest request = RegisterRequest.newBuilder().setVersion(API_VERSION)
                    .setEndpoint(socket.getFileName().toString()).setResourceName(resource)
                    .setOptions(ProtoMapping.options(plugin.options())).build();
            RegistrationGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(tuning.get().registrationTimeout(), TimeUnit.MILLISECONDS).register(request);
            // The kubelet that answered is the one behind kubelet.sock now, not necessarily the one whose file
            // was there before the dial: a restarting kubelet deletes our socket first and replaces kubelet.sock
            // afterwards, and a dial in between reaches the new kubelet. Had that kubelet been replaced again
            // since it answered, it would have deleted our socket as well, and that brings us back here.
            Optional<String> dialled = SocketIdentity.of(settings.kubeletSocket());
            synchronized (lock) {
                if (closed) {
                    return true;
                }
                registeredWith = dialled;
                registered = true;
            }
            stats.registrations.increment();
            failureStreak = 0;
            lastError = "";
            LOG.info("registered resource={} endpoint={} kubelet={}", resource, socket.getFileName(),
                    settings.kubeletSocket());
            return true;
        } catch (StatusRuntimeException e) {
            if (closed) {
                LOG.debug("registration of resource={} cancelled: the resource is closed", resource);
                return true;
            }
            stats.registrationFailures.increment();
            return failed("register with " + settings.kubeletSocket() + " failed: "
                    + GrpcErrors.oneLine(e.getStatus()));
        } finally {
            inFlight = null;
            channel.shutdownNow();
        }
    }

    private boolean failed(String message) {
        registered = false;
        lastError = message;
        if (failureStreak++ == 0) {
            LOG.warn("resource={} {} (retrying)", resource, message);
        } else {
            LOG.debug("resource={} {} (attempt {})", resource, message, failureStreak);
        }
        return false;
    }

    int failureStreak() {
        return failureStreak;
    }

    @Override
    public void devicesChanged() {
        synchronized (pushLock) {
            List<Device> devices = plugin.devices();
            int before = requestLimit.bytes();
            if (requestLimit.update(devices) && before < requestLimit.bytes()) {
                LOG.warn("resource={} has {} devices: its largest requests may exceed the {} byte ceiling and be"
                        + " refused", resource, devices.size(), bounds.limits().messageCeiling());
            }
            if (before != requestLimit.bytes()) {
                LOG.debug("request limit resource={} bytes={} devices={}", resource, requestLimit.bytes(),
                        devices.size());
            }
            stats.devices(devices.size(), (int) devices.stream().filter(Device::healthy).count());
            ListAndWatchStreams current = streams;
            if (current != null && current.push(ProtoMapping.devices(devices)) > 0) {
                stats.listAndWatchUpdates.increment();
                LOG.debug("ListAndWatch update resource={} devices={}", resource, devices.size());
            }
        }
    }

    private void bind() throws IOException {
        Files.deleteIfExists(socket);                     // our own name: only this instance binds it
        streams = new ListAndWatchStreams(this::kubeletLetGo);
        requestLimit.update(plugin.devices());
        CallLimits limits = bounds.limits();
        CallGate gate = new CallGate(resource, bounds, stats);
        ServerServiceDefinition service = ServerInterceptors.intercept(ServerInterceptors.useMarshalledMessages(
                new DevicePluginService(plugin, streams, stats, pushLock).bindService(),
                WireMessages.requests(requestLimit::bytes), WireMessages.responses()), gate);
        // The transport reads up to the ceiling; the resource's own limit is checked on each request's size.
        int perConnection = limits.callsPerResource() + limits.streamsPerResource();
        server = settings.watcher()
                ? transport.serve(socket, limits.messageCeiling(), perConnection, service,
                        new PluginWatcherService(resource, socket, onGetInfo, this::watcherStatus).bindService())
                : transport.serve(socket, limits.messageCeiling(), perConnection, service);
        // Nothing but kubelet (root) may talk to the plugin. The directory is kubelet's and not world-writable,
        // so the short window between bind and chmod exposes nothing.
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
        socketId = SocketIdentity.of(socket);
    }

    /**
     * kubelet ended every ListAndWatch stream of this socket. It does that to the endpoint that a newer
     * registration of the resource replaced, and (before 1.35, kubernetes#121994) to the newest endpoint as well
     * when the replaced one disconnects afterwards: a predecessor that stops after its successor registered would
     * leave the resource with no endpoint. So the newest instance registers again at once; an older one (a live
     * socket of a newer instance serves the resource) leaves kubelet to it. A kubelet restart is not handled
     * here in classic mode (its socket stops answering, and the new one replaces the file: {@link #reconcile} sees
     * that). In watcher mode kubelet's plugin watcher deregisters by resource name when the replaced instance's
     * socket goes, with the same effect; there the newest instance serves a new socket file, which the watcher
     * discovers and registers.
     */
    private void kubeletLetGo() {
        if (closed || !registered || handedOver.getAsBoolean()) {
            return;
        }
        if (newerInstanceServes()) {
            LOG.info("resource={} now served by a newer agent instance; kubelet closed this one's stream", resource);
            return;
        }
        if (!settings.watcher() && !StaleSockets.answers(settings.kubeletSocket())) {
            return;                                      // kubelet is restarting: its new socket brings us back
        }
        synchronized (lock) {
            if (closed) {
                return;
            }
            registered = false;                          // classic: registeredWith stays, this is the same kubelet
            if (settings.watcher()) {
                socketId = Optional.empty();             // a new socket file: the plugin watcher registers it
            }
        }
        LOG.info("kubelet closed the ListAndWatch stream of resource={} and no newer instance serves it:"
                + " registering again", resource);
        reconcileSoon.accept(this);
    }

    /**
     * An instance that began to take over from this one died before it was ready (the handover's
     * {@code onSuccessorLost}); it may have registered this resource, leaving kubelet with its dead endpoint. Its
     * sockets for this resource (newer, not marked handed over, not answering) are ignored from now on, and this
     * server registers again at once: the newer-instance grace is for an instance that may serve again, and this
     * one is known dead.
     */
    void successorLost() {
        List<NewerSocket> dead = newerSockets().stream()
                .filter(n -> !n.handedOver() && !StaleSockets.answers(n.file())).toList();
        if (dead.isEmpty()) {
            return;
        }
        synchronized (lock) {
            if (closed || handedOver.getAsBoolean()) {
                return;
            }
            dead.forEach(n -> lostInstances.add(n.tag()));
            registered = false;
            newerSeen = null;
            newerAwaitedSince = 0;
            if (settings.watcher()) {
                socketId = Optional.empty();             // a new socket file: the plugin watcher registers it
            }
        }
        LOG.warn("resource={}: agent instance(s) {} that registered it died before taking over; registering this"
                + " instance again", resource, dead.stream().map(NewerSocket::tag).toList());
        reconcileSoon.accept(this);
    }

    /**
     * Marks this server's socket as an instance's that handed over: mode 0400 instead of 0600. Instance tags are
     * taken when an agent starts, but which instance ends up owning the node is decided by the handover: two
     * agents started at once (a supervisor restarting a killed one beside a successor) can end with the older tag
     * taking over from the newer one. A newer tag must not make the owner stand down then, so the handed-over
     * instance says so on its socket files, which stay until it exits to answer calls kubelet sent before it
     * switched. The mode is the mark because kubelet connects as root, whom it does not stop, and it needs no
     * file of ours in kubelet's directory.
     */
    void markHandedOver() {
        Path s = socket;
        try {
            if (Files.exists(s)) {
                Files.setPosixFilePermissions(s, PosixFilePermissions.fromString("r--------"));
            }
        } catch (IOException | UnsupportedOperationException e) {
            LOG.debug("cannot mark {} handed over: {}", s, e.getMessage());
        }
    }

    /** Whether {@code file} is a socket whose instance handed over ({@link #markHandedOver}). */
    static boolean handedOverSocket(Path file) {
        try {
            return !Files.getPosixFilePermissions(file).contains(java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
        } catch (IOException | UnsupportedOperationException e) {
            return false;                                // gone, or not a POSIX file system: not marked
        }
    }

    /** A live socket of a newer instance of this agent serves the same resource in the socket directory. */
    boolean newerInstanceServes() {
        return newerSockets().stream().anyMatch(newer -> !newer.handedOver() && StaleSockets.answers(newer.file()));
    }

    private void stopServer() {
        if (server == null) {
            return;
        }
        streams.completeAll();
        server.shutdown();
        long timeout = tuning.get().shutdownTimeout();
        try {
            if (!server.awaitTermination(timeout, TimeUnit.MILLISECONDS)) {
                LOG.warn("forcing stop resource={}: calls still running after {} ms", resource, timeout);
                server.shutdownNow().awaitTermination(1, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            server.shutdownNow();
            Thread.currentThread().interrupt();
        }
        server = null;
        try {
            if (socketId.isPresent() && socketId.equals(SocketIdentity.of(socket))) {
                Files.deleteIfExists(socket);
            }
        } catch (IOException e) {
            LOG.warn("cannot delete {} resource={}: {}", socket, resource, e.getMessage());
        }
        socketId = Optional.empty();
    }

    @Override
    public String resourceName() {
        return resource;
    }

    @Override
    public Path socket() {
        return socket;
    }

    @Override
    public boolean registered() {
        return registered;
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            registered = false;
            // A Register still in flight would make kubelet dial back to this socket, wait out gRPC's 1 s
            // back-off once it is gone and attach to whichever server binds the name next: cancel it.
            ManagedChannel pending = inFlight;
            if (pending != null) {
                pending.shutdownNow();
            }
            stopServer();
        }
        firstAttempt.countDown();
        onClose.run();
        LOG.info("stopped serving resource={}", resource);
    }

    ResourceFigures figures() {
        return stats.figures(resource, registered);
    }

    /** The live counters, for the metrics collector (histogram buckets, kubelet restarts). */
    ResourceStats stats() {
        return stats;
    }

    Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>();
        ResourceFigures f = figures();
        m.put("resource", resource);
        m.put("socket", socket.toString());
        m.put("registered", registered);
        m.put("registrations", f.registrations());
        m.put("devices", f.devicesAdvertised());
        m.put("healthy", f.devicesHealthy());
        m.put("allocations", f.allocations());
        m.put("requestLimitBytes", requestLimit.bytes());
        m.put("callsRefused", Map.of("busy", stats.refusedBusy.sum(), "oversize", stats.refusedOversize.sum(),
                "malformed", stats.refusedMalformed.sum(), "timeout", stats.callsTimedOut.sum()));
        ListAndWatchStreams s = streams;
        m.put("listAndWatchStreams", s == null ? 0 : s.size());
        if (!lastError.isEmpty()) {
            m.put("lastError", lastError);
        }
        return m;
    }

    String lastError() {
        return lastError;
    }

    /** The {@code ListAndWatch} streams kubelet holds open on this resource now. */
    int listAndWatchStreams() {
        ListAndWatchStreams s = streams;
        return s == null ? 0 : s.size();
    }
}
