// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.grpc.ManagedChannel;
import io.rdmanode.dra.internal.pluginregistration.InfoRequest;
import io.rdmanode.dra.internal.pluginregistration.PluginInfo;
import io.rdmanode.dra.internal.pluginregistration.RegistrationGrpc;
import io.rdmanode.dra.internal.pluginregistration.RegistrationStatus;
import io.rdmanode.dra.internal.v1.Claim;
import io.rdmanode.dra.internal.v1.DRAPluginGrpc;
import io.rdmanode.dra.internal.v1.NodePrepareResourcesRequest;
import io.rdmanode.dra.internal.v1.NodePrepareResourcesResponse;
import io.rdmanode.dra.internal.v1.NodeUnprepareResourcesRequest;
import io.rdmanode.dra.internal.v1.NodeUnprepareResourcesResponse;
import io.rdmanode.kubelet.testing.UnixSockets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * kubelet 1.34's side of a DRA driver, as observed (shared/reference/dra.md): watches the plugins_registry
 * directory (inotify, as kubelet's fsnotify), dials each new socket, calls {@code GetInfo} with a 1 s deadline, takes the first of the plugin's
 * versions it knows ({@code v1.DRAPlugin}, {@code v1beta1.DRAPlugin}), refuses other types or versions with
 * {@code NotifyRegistrationStatus(false, ...)} and accepts with {@code true} (5 s deadline), then calls Prepare and
 * Unprepare on the endpoint with the 45 s deadline, all claims of a pod in one call. {@link #restart()} forgets
 * every plugin and finds the sockets again, as a restarted kubelet does; a socket that goes away deregisters.
 */
final class KubeletDouble implements AutoCloseable {

    /** kubelet retries a refused plugin with backoff, 1 s first. */
    private static final long RETRY_NANOS = 1_000_000_000L;
    static final List<String> KNOWN_VERSIONS = List.of("v1.DRAPlugin", "v1beta1.DRAPlugin");

    /** One registration kubelet made: the driver's info and the version it chose. */
    record Registered(PluginInfo info, String version, Path socket, long atNanos) { }

    private final Path registryDir;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final UnixSockets.Client transport = new UnixSockets.Client(1, "kubelet-double-io", executor);
    private final Map<Path, Registered> plugins = new ConcurrentHashMap<>();
    private final List<Registered> history = new CopyOnWriteArrayList<>();
    private final List<String> refusals = new CopyOnWriteArrayList<>();
    private final Map<Path, Long> retries = new ConcurrentHashMap<>();
    private final java.util.concurrent.atomic.AtomicBoolean rescan = new java.util.concurrent.atomic.AtomicBoolean();
    private final Thread watcher;

    KubeletDouble(Path registryDir) {
        this.registryDir = registryDir;
        this.watcher = new Thread(this::watch, "kubelet-double-watcher");
        watcher.setDaemon(true);
        watcher.start();
    }

    /**
     * Like kubelet's fsnotify watcher: every socket created in the directory is a new plugin (even at a path seen
     * before), a deleted one deregisters. A registration that failed (socket not answering yet) or was refused is
     * tried again after 1 s, as kubelet retries with backoff. {@link #restart()} scans the directory again.
     */
    private void watch() {
        try (WatchService ws = registryDir.getFileSystem().newWatchService()) {
            registryDir.register(ws, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
            scanAll();
            while (!Thread.currentThread().isInterrupted()) {
                WatchKey key = ws.poll(10, TimeUnit.MILLISECONDS);
                if (key != null) {
                    for (WatchEvent<?> event : key.pollEvents()) {
                        if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
                            scanAll();
                            continue;
                        }
                        Path socket = registryDir.resolve((Path) event.context());
                        if (!socket.getFileName().toString().endsWith(".sock")) {
                            continue;
                        }
                        if (event.kind() == StandardWatchEventKinds.ENTRY_CREATE) {
                            register(socket);
                        } else {
                            plugins.remove(socket);
                            retries.remove(socket);
                        }
                    }
                    key.reset();
                }
                if (rescan.getAndSet(false)) {
                    scanAll();
                }
                long now = System.nanoTime();
                for (Map.Entry<Path, Long> r : Map.copyOf(retries).entrySet()) {
                    if (now - r.getValue() > RETRY_NANOS && Files.exists(r.getKey(), LinkOption.NOFOLLOW_LINKS)) {
                        register(r.getKey());
                    }
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException | java.nio.file.ClosedWatchServiceException e) {
            // closed
        }
    }

    private void scanAll() throws IOException {
        try (Stream<Path> files = Files.list(registryDir)) {
            for (Path s : files.filter(p -> p.getFileName().toString().endsWith(".sock")).toList()) {
                register(s);
            }
        }
    }

    private void register(Path socket) {
        retries.remove(socket);
        ManagedChannel ch = transport.dial(socket);
        try {
            var stub = RegistrationGrpc.newBlockingStub(ch);
            PluginInfo info = stub.withDeadlineAfter(1, TimeUnit.SECONDS).getInfo(InfoRequest.getDefaultInstance());
            Optional<String> version = info.getSupportedVersionsList().stream().filter(KNOWN_VERSIONS::contains)
                    .findFirst();
            String error = !info.getType().equals("DRAPlugin") ? "unknown plugin type " + info.getType()
                    : version.isEmpty() ? "none of " + info.getSupportedVersionsList() + " is one of " + KNOWN_VERSIONS
                    : "";
            if (error.isEmpty()) {
                error = endpointProblem(Path.of(info.getEndpoint()));
            }
            stub.withDeadlineAfter(5, TimeUnit.SECONDS).notifyRegistrationStatus(RegistrationStatus.newBuilder()
                    .setPluginRegistered(error.isEmpty()).setError(error).build());
            if (error.isEmpty()) {
                Registered r = new Registered(info, version.get(), socket, System.nanoTime());
                plugins.put(socket, r);
                history.add(r);
            } else {
                refusals.add(error);
                plugins.remove(socket);
                retries.put(socket, System.nanoTime());
            }
        } catch (RuntimeException e) {
            // kubelet retries GetInfo with backoff
            plugins.remove(socket);
            retries.put(socket, System.nanoTime());
        } finally {
            ch.shutdownNow();
        }
    }

    /**
     * kubelet dials the DRA socket right after GetInfo: a driver whose endpoint is not listening yet fails. An
     * empty Prepare stands in for the connection check (it must succeed with no claims).
     */
    private String endpointProblem(Path endpoint) {
        ManagedChannel ch = transport.dial(endpoint);
        try {
            DRAPluginGrpc.newBlockingStub(ch).withDeadlineAfter(1, TimeUnit.SECONDS)
                    .nodePrepareResources(NodePrepareResourcesRequest.getDefaultInstance());
            return "";
        } catch (RuntimeException e) {
            return "endpoint " + endpoint + " does not answer: " + e.getMessage();
        } finally {
            ch.shutdownNow();
        }
    }

    /**
     * The instance of {@code driver} kubelet calls: as kubelet 1.33+ does during a driver's rolling update, every
     * registered instance is kept (by socket) and the most recently registered one is used; when it goes, the
     * next newest.
     */
    Optional<Registered> registered(String driver) {
        return plugins.values().stream().filter(r -> r.info().getName().equals(driver))
                .max(java.util.Comparator.comparingLong(Registered::atNanos));
    }

    /** Every registered instance of {@code driver}. */
    List<Registered> instances(String driver) {
        return plugins.values().stream().filter(r -> r.info().getName().equals(driver)).toList();
    }

    /** Every successful registration since the start, restarts included. */
    List<Registered> history() {
        return List.copyOf(history);
    }

    List<String> refusals() {
        return List.copyOf(refusals);
    }

    /** A kubelet restart: every plugin forgotten, found again from the directory. */
    void restart() {
        plugins.clear();
        rescan.set(true);
    }

    /** NodePrepareResources for one pod's claims, on the registered driver's endpoint and version. */
    NodePrepareResourcesResponse prepare(String driver, Claim... claims) {
        Registered r = registered(driver).orElseThrow(() -> new IllegalStateException(driver + " not registered"));
        ManagedChannel ch = transport.dial(Path.of(r.info().getEndpoint()));
        try {
            return DRAPluginGrpc.newBlockingStub(ch).withDeadlineAfter(45, TimeUnit.SECONDS)
                    .nodePrepareResources(NodePrepareResourcesRequest.newBuilder().addAllClaims(List.of(claims))
                            .build());
        } finally {
            ch.shutdownNow();
        }
    }

    NodeUnprepareResourcesResponse unprepare(String driver, Claim... claims) {
        Registered r = registered(driver).orElseThrow(() -> new IllegalStateException(driver + " not registered"));
        ManagedChannel ch = transport.dial(Path.of(r.info().getEndpoint()));
        try {
            return DRAPluginGrpc.newBlockingStub(ch).withDeadlineAfter(45, TimeUnit.SECONDS)
                    .nodeUnprepareResources(NodeUnprepareResourcesRequest.newBuilder().addAllClaims(List.of(claims))
                            .build());
        } finally {
            ch.shutdownNow();
        }
    }

    /** A raw channel to any socket (the v1beta1 test calls the other service name). */
    ManagedChannel dial(Path socket) {
        return transport.dial(socket);
    }

    static Claim claim(String namespace, String name, String uid) {
        return Claim.newBuilder().setNamespace(namespace).setName(name).setUid(uid).build();
    }

    @Override
    public void close() {
        watcher.interrupt();
        transport.close(2000);
        executor.shutdownNow();
    }
}
