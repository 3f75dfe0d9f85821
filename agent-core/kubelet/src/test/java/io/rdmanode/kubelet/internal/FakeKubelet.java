// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.rdmanode.kubelet.internal.v1beta1.AllocateRequest;
import io.rdmanode.kubelet.internal.v1beta1.AllocateResponse;
import io.rdmanode.kubelet.internal.v1beta1.ContainerAllocateRequest;
import io.rdmanode.kubelet.internal.v1beta1.ContainerPreferredAllocationRequest;
import io.rdmanode.kubelet.internal.v1beta1.DevicePluginGrpc;
import io.rdmanode.kubelet.internal.v1beta1.DevicePluginOptions;
import io.rdmanode.kubelet.internal.v1beta1.Empty;
import io.rdmanode.kubelet.internal.v1beta1.ListAndWatchResponse;
import io.rdmanode.kubelet.internal.v1beta1.PreferredAllocationRequest;
import io.rdmanode.kubelet.internal.v1beta1.PreferredAllocationResponse;
import io.rdmanode.kubelet.internal.v1beta1.RegisterRequest;
import io.rdmanode.kubelet.internal.v1beta1.RegistrationGrpc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A kubelet double: a real {@code v1beta1.Registration} gRPC server on {@code <dir>/kubelet.sock}. Like kubelet,
 * {@code Register} dials the plugin back on {@code <dir>/<endpoint>} and calls {@code GetDevicePluginOptions}
 * before it answers, then opens the {@code ListAndWatch} stream. A newer registration of a resource takes over
 * its calls; the replaced connection stays until the plugin ends its stream, so a call sent there completes.
 * {@link #restart()} does what a kubelet restart does to the directory: every file but the checkpoint goes, then
 * a new {@code kubelet.sock} appears.
 * {@link #admit} admits a container as kubelet's device manager does ({@link FakeDeviceManager}: its own book per
 * resource name, the checkpoint file in the directory); {@link #servePodResources} serves that book as kubelet's
 * pod-resources API on a socket of the test's choosing, stopped and started with kubelet.
 */
public final class FakeKubelet implements AutoCloseable {

    /** One accepted registration. {@code nanos} is {@link System#nanoTime()} when Register arrived. */
    public record Registration(String resource, String endpoint, String version, long nanos) {
    }

    private final Path dir;
    private final ExecutorService executor = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fake-kubelet");
        t.setDaemon(true);
        return t;
    });
    private final UdsTransport transport;
    private final List<Registration> registrations = new CopyOnWriteArrayList<>();
    private final Map<String, PluginConnection> plugins = new ConcurrentHashMap<>();
    /** Connections of replaced registrations whose ListAndWatch stream is still open. */
    private final java.util.Set<PluginConnection> replaced = ConcurrentHashMap.newKeySet();
    private final Map<String, PluginConnection> replacedBy = new ConcurrentHashMap<>();   // resource -> latest
    private volatile boolean dropsNewest;
    private volatile Server server;
    private volatile long startedNanos;
    private final Map<String, java.util.concurrent.CountDownLatch> held = new ConcurrentHashMap<>();
    private final List<String> cancelledRegistrations = new CopyOnWriteArrayList<>();
    private final List<String> arrivedRegistrations = new CopyOnWriteArrayList<>();
    private final Map<String, String> refusals = new ConcurrentHashMap<>();
    private final java.util.Set<String> withheldStreams = ConcurrentHashMap.newKeySet();
    private final FakeDeviceManager deviceManager;
    private volatile Path podResourcesSocket;
    private volatile Server podResourcesServer;

    public FakeKubelet(Path dir) {
        this.dir = dir;
        this.transport = new UdsTransport(1, "fake-kubelet-io", executor);
        this.deviceManager = new FakeDeviceManager(dir.resolve(KubeletCheckpoint.FILE_NAME));
    }

    public FakeDeviceManager deviceManager() {
        return deviceManager;
    }

    /**
     * Serves kubelet's pod-resources API on {@code socket} from now on, and again after every start (kubelet
     * serves it for its whole life).
     */
    public synchronized FakeKubelet servePodResources(Path socket) {
        stopPodResources();
        podResourcesSocket = socket;
        if (server != null) {
            startPodResources();
        }
        return this;
    }

    /** The pod-resources API goes (the socket file with it) while kubelet's device-plugin side stays. */
    public synchronized void stopPodResources() {
        if (podResourcesServer != null) {
            podResourcesServer.shutdownNow();
            awaitQuietly(podResourcesServer);
            podResourcesServer = null;
        }
        if (podResourcesSocket != null) {
            deleteQuietly(podResourcesSocket);
        }
    }

    /** Serves the pod-resources API again on the socket given to {@link #servePodResources}. */
    public synchronized void startPodResources() {
        if (podResourcesSocket == null || podResourcesServer != null) {
            return;
        }
        try {
            Files.createDirectories(podResourcesSocket.getParent());
            deleteQuietly(podResourcesSocket);
            podResourcesServer = transport.serve(podResourcesSocket, deviceManager.service());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Admits container {@code container} of pod {@code namespace/pod} asking for {@code count} devices of
     * {@code resource}, like kubelet: GetPreferredAllocation when offered, then Allocate with IDs of the plugin's
     * latest healthy list that kubelet's book holds under no pod for {@code resource}. Returns the IDs.
     */
    public List<String> admit(String namespace, String pod, String container, String resource, int count) {
        // The endpoint is looked up once the book is ours: one held by a waiting admission may be gone by then.
        synchronized (deviceManager) {
            return deviceManager.admit(plugin(resource), namespace, pod, container, resource, count);
        }
    }

    /** The pod is gone: kubelet frees its devices (book and checkpoint). */
    public int remove(String namespace, String pod) {
        return deviceManager.remove(namespace, pod);
    }

    public Path socket() {
        return dir.resolve("kubelet.sock");
    }

    public synchronized FakeKubelet start() {
        try {
            server = transport.serve(socket(), new RegistrationService());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        startedNanos = System.nanoTime();
        startPodResources();
        return this;
    }

    /** Stops serving and removes kubelet.sock, as a stopped kubelet leaves the directory. */
    public synchronized void stop() {
        if (server != null) {
            server.shutdownNow();
            awaitQuietly(server);
            server = null;
        }
        plugins.values().forEach(PluginConnection::close);
        plugins.clear();
        replaced.forEach(PluginConnection::close);
        replaced.clear();
        replacedBy.clear();
        deleteQuietly(socket());
        stopPodResources();
    }

    /** Stop, delete every socket and file but the checkpoint (kubelet's device manager does), start again. */
    public synchronized void restart() {
        stop();
        deletePluginFiles();
        start();
    }

    /** The kubelet process dies: nothing answers on kubelet.sock (nor pod-resources) any more, but files stay. */
    public synchronized void kill() {
        if (server != null) {
            server.shutdownNow();
            awaitQuietly(server);
            server = null;
        }
        if (podResourcesServer != null) {
            podResourcesServer.shutdownNow();
            awaitQuietly(podResourcesServer);
            podResourcesServer = null;
            leaveStaleSocket(podResourcesSocket);
        }
        plugins.values().forEach(PluginConnection::close);
        plugins.clear();
        replaced.forEach(PluginConnection::close);
        replaced.clear();
        replacedBy.clear();
    }

    /**
     * The first half of a restart as kubelet 1.26 orders it: the new kubelet deletes every plugin socket while
     * the old {@code kubelet.sock} file is still there; {@link #replaceSocket()} is the second half.
     */
    public synchronized void deletePluginFiles() {
        try (Stream<Path> files = Files.list(dir)) {
            files.filter(p -> !Files.isDirectory(p))
                    .filter(p -> !p.getFileName().toString().equals(KubeletCheckpoint.FILE_NAME))
                    .filter(p -> !p.equals(socket()))
                    .forEach(FakeKubelet::deleteQuietly);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The second half of a restart: a new kubelet.sock (and a new server behind it) replaces the old one. */
    public synchronized void replaceSocket() {
        stop();
        start();
    }

    /** {@link System#nanoTime()} when kubelet.sock was last created. */
    public long startedNanos() {
        return startedNanos;
    }

    /** kubelet closes its connection to {@code resource}'s plugin, ListAndWatch stream included, and stays up. */
    public void dropStream(String resource) {
        PluginConnection connection = plugins.remove(resource);
        if (connection != null) {
            connection.close();
        }
    }

    /** {@code Register} calls for {@code resource} fail with INVALID_ARGUMENT and {@code reason}, as kubelet's own checks do. */
    public void refuse(String resource, String reason) {
        refusals.put(resource, reason);
    }

    /**
     * {@code Register} calls for {@code resource} succeed, but kubelet opens no ListAndWatch stream on them (a
     * kubelet that lost the plugin between the two steps).
     */
    public void withholdStream(String resource) {
        withheldStreams.add(resource);
    }

    /** {@code Register} calls for {@code resource} are accepted again. */
    public void accept(String resource) {
        refusals.remove(resource);
    }

    /**
     * {@code Register} calls for {@code resource} arrive but get no answer until {@link #release} (a kubelet
     * busy elsewhere); a call the plugin cancels meanwhile is recorded in {@link #cancelledRegistrations()}.
     */
    public void hold(String resource) {
        held.put(resource, new java.util.concurrent.CountDownLatch(1));
    }

    public void release(String resource) {
        var latch = held.remove(resource);
        if (latch != null) {
            latch.countDown();
        }
    }

    /** Resources whose Register call arrived (answered or not), in arrival order. */
    public List<String> arrivedRegistrations() {
        return List.copyOf(arrivedRegistrations);
    }

    /** Resources whose held Register call the plugin cancelled. */
    public List<String> cancelledRegistrations() {
        return List.copyOf(cancelledRegistrations);
    }

    public List<Registration> registrations() {
        return List.copyOf(registrations);
    }

    public long registrations(String resource) {
        return registrations.stream().filter(r -> r.resource().equals(resource)).count();
    }

    /** Waits until {@code resource} has registered {@code count} times in total; returns the last one. */
    public Registration awaitRegistrations(String resource, long count, Duration timeout) {
        try {
            return until(timeout, () -> {
                List<Registration> mine = registrations.stream().filter(r -> r.resource().equals(resource)).toList();
                return mine.size() >= count && plugins.containsKey(resource) ? mine.get(mine.size() - 1) : null;
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(resource + " did not register " + count + " time(s) within " + timeout
                    + "; registrations: " + registrations);
        }
    }

    /** The connection kubelet holds to {@code resource}'s plugin, from its latest registration. */
    public PluginConnection plugin(String resource) {
        PluginConnection c = plugins.get(resource);
        if (c == null) {
            throw new AssertionError("no plugin registered for " + resource + "; registrations: " + registrations);
        }
        return c;
    }

    /**
     * As kubelet before 1.35 (kubernetes#121994): when a replaced endpoint's stream ends, kubelet disconnects the
     * resource's current endpoint as well (its connection closes, the resource has no endpoint until the plugin
     * registers again).
     */
    public void dropNewestWhenReplacedStreamEnds(boolean drop) {
        dropsNewest = drop;
    }

    /**
     * kubelet's connection to the endpoint the current one replaced for {@code resource}, while its ListAndWatch
     * stream is open: where a call kubelet sent before it switched still goes. Null if none.
     */
    public PluginConnection replacedPlugin(String resource) {
        return replacedBy.get(resource);
    }

    public boolean hasPlugin(String resource) {
        return plugins.containsKey(resource);
    }

    @Override
    public void close() {
        stop();
        transport.close(2000);
        executor.shutdownNow();
    }

    private final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {
        @Override
        public void register(RegisterRequest request, StreamObserver<io.rdmanode.kubelet.internal.v1beta1.Empty> out) {
            long now = System.nanoTime();
            arrivedRegistrations.add(request.getResourceName());
            var latch = held.get(request.getResourceName());
            if (latch != null && !awaitOrCancelled(latch, request.getResourceName())) {
                return;
            }
            if (!request.getVersion().equals("v1beta1")) {
                out.onError(Status.INVALID_ARGUMENT.withDescription("unsupported API version "
                        + request.getVersion()).asRuntimeException());
                return;
            }
            String refusal = refusals.get(request.getResourceName());
            if (refusal != null) {
                out.onError(Status.INVALID_ARGUMENT.withDescription(refusal).asRuntimeException());
                return;
            }
            var problem = ResourceNames.problem(request.getResourceName());
            if (problem.isPresent()) {
                out.onError(Status.INVALID_ARGUMENT.withDescription(problem.get()).asRuntimeException());
                return;
            }
            PluginConnection connection;
            try {
                connection = new PluginConnection(transport.dial(dir.resolve(request.getEndpoint())));
                connection.options = connection.stub().withDeadlineAfter(10, TimeUnit.SECONDS)
                        .getDevicePluginOptions(Empty.getDefaultInstance());
            } catch (RuntimeException e) {
                out.onError(Status.UNAVAILABLE.withDescription("cannot dial plugin " + request.getEndpoint() + ": "
                        + e.getMessage()).asRuntimeException());
                return;
            }
            PluginConnection old = plugins.put(request.getResourceName(), connection);
            if (old != null) {
                // kubelet keeps the replaced endpoint's connection until its ListAndWatch stream ends (the plugin
                // ends it); a call already sent there completes there.
                replaced.add(old);
                replacedBy.put(request.getResourceName(), old);
                old.closeWhenStreamEnds(() -> {
                    replaced.remove(old);
                    replacedBy.remove(request.getResourceName(), old);
                    if (dropsNewest) {
                        dropStream(request.getResourceName());
                    }
                });
            }
            registrations.add(new Registration(request.getResourceName(), request.getEndpoint(),
                    request.getVersion(), now));
            out.onNext(io.rdmanode.kubelet.internal.v1beta1.Empty.getDefaultInstance());
            out.onCompleted();
            // Detached from this call's context, which is cancelled when Register returns.
            if (!withheldStreams.contains(request.getResourceName())) {
                io.grpc.Context.ROOT.run(connection::watch);
            }
        }
    }

    /** kubelet's side of one plugin: the ListAndWatch updates seen and calls like kubelet makes them. */
    public static final class PluginConnection {
        private final ManagedChannel channel;
        private final List<ListAndWatchResponse> updates = new CopyOnWriteArrayList<>();
        private final List<Long> updateNanos = new CopyOnWriteArrayList<>();
        private volatile DevicePluginOptions options;
        private volatile Status streamEnd;
        private volatile Runnable onStreamEnd;

        PluginConnection(ManagedChannel channel) {
            this.channel = channel;
        }

        DevicePluginGrpc.DevicePluginBlockingStub stub() {
            return DevicePluginGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
        }

        void watch() {
            DevicePluginGrpc.newStub(channel).listAndWatch(Empty.getDefaultInstance(), new StreamObserver<>() {
                @Override
                public void onNext(ListAndWatchResponse value) {
                    updateNanos.add(System.nanoTime());
                    updates.add(value);
                }

                @Override
                public void onError(Throwable t) {
                    ended(Status.fromThrowable(t));
                }

                @Override
                public void onCompleted() {
                    ended(Status.OK);
                }
            });
        }

        private synchronized void ended(Status status) {
            streamEnd = status;
            if (onStreamEnd != null) {
                onStreamEnd.run();
            }
        }

        /**
         * A newer registration replaced this one: once the plugin ends the stream the channel shuts down (calls
         * still running on it finish), then {@code after} runs.
         */
        synchronized void closeWhenStreamEnds(Runnable after) {
            onStreamEnd = () -> {
                channel.shutdown();
                after.run();
            };
            if (streamEnd != null) {
                onStreamEnd.run();
            }
        }

        public DevicePluginOptions options() {
            return options;
        }

        /** One GetDevicePluginOptions call, as kubelet makes it when the plugin registers. */
        public DevicePluginOptions fetchOptions() {
            return stub().getDevicePluginOptions(Empty.getDefaultInstance());
        }

        public List<ListAndWatchResponse> updates() {
            return List.copyOf(updates);
        }

        /** {@link System#nanoTime()} of each update, same order as {@link #updates()}. */
        public List<Long> updateNanos() {
            return List.copyOf(updateNanos);
        }

        /** Waits for an update matching {@code condition}; returns it. */
        public ListAndWatchResponse awaitUpdate(Predicate<ListAndWatchResponse> condition, Duration timeout) {
            try {
                return until(timeout, () -> {
                    List<ListAndWatchResponse> seen = updates();
                    return !seen.isEmpty() && condition.test(seen.get(seen.size() - 1)) ? seen.get(seen.size() - 1)
                            : null;
                });
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError("no matching ListAndWatch update within " + timeout + "; seen: " + updates
                        + "; stream end: " + streamEnd);
            }
        }

        public ListAndWatchResponse latest(Duration timeout) {
            return awaitUpdate(r -> true, timeout);
        }

        /** How the stream ended (OK after onCompleted), null while open. */
        public Status streamEnd() {
            return streamEnd;
        }

        /** One Allocate with one container request per argument, as kubelet does per container. */
        @SafeVarargs
        public final AllocateResponse allocate(List<String>... containers) {
            AllocateRequest.Builder request = AllocateRequest.newBuilder();
            for (List<String> ids : containers) {
                request.addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids));
            }
            return stub().allocate(request.build());
        }

        public PreferredAllocationResponse preferred(List<String> available, List<String> mustInclude, int size) {
            return stub().getPreferredAllocation(PreferredAllocationRequest.newBuilder()
                    .addContainerRequests(ContainerPreferredAllocationRequest.newBuilder()
                            .addAllAvailableDeviceIDs(available).addAllMustIncludeDeviceIDs(mustInclude)
                            .setAllocationSize(size)).build());
        }

        public ManagedChannel channel() {
            return channel;
        }

        void close() {
            channel.shutdownNow();
        }
    }

    /** False when the caller cancelled the call while it was held. */
    private boolean awaitOrCancelled(java.util.concurrent.CountDownLatch latch, String resource) {
        io.grpc.Context context = io.grpc.Context.current();
        try {
            while (!latch.await(5, TimeUnit.MILLISECONDS)) {
                if (context.isCancelled()) {
                    cancelledRegistrations.add(resource);
                    return false;
                }
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * A killed process leaves its socket file with nobody listening (a connect gets ECONNREFUSED); Netty unlinks
     * it on a clean shutdown, so a socket is bound and closed again here, which leaves the file.
     */
    private static void leaveStaleSocket(Path socket) {
        if (Files.exists(socket)) {
            return;
        }
        try (var channel = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
            channel.bind(java.net.UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void awaitQuietly(Server s) {
        try {
            s.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The first non-null value of {@code probe} within {@code timeout}, polled every millisecond from the start
     * (re-registration timings are read from these waits, so no initial delay).
     */
    private static <T> T until(Duration timeout, java.util.concurrent.Callable<T> probe) {
        return org.awaitility.Awaitility.await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                .atMost(timeout).until(probe, java.util.Objects::nonNull);
    }
}
