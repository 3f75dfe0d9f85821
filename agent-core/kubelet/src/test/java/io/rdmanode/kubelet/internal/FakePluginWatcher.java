// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.rdmanode.kubelet.internal.pluginregistration.InfoRequest;
import io.rdmanode.kubelet.internal.pluginregistration.PluginInfo;
import io.rdmanode.kubelet.internal.pluginregistration.RegistrationGrpc;
import io.rdmanode.kubelet.internal.pluginregistration.RegistrationStatus;
import io.rdmanode.kubelet.internal.v1beta1.Empty;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * kubelet's plugin watcher as a test double (protocol-facts §1.5): finds sockets in a plugins_registry
 * directory, calls {@code GetInfo}, checks type, versions and resource name, connects to the endpoint like
 * kubelet (GetDevicePluginOptions, ListAndWatch) and reports with {@code NotifyRegistrationStatus}. A
 * {@link #restart()} forgets every socket and finds them again, as a restarted kubelet does.
 */
public final class FakePluginWatcher implements AutoCloseable {

    private final Path dir;
    private final UdsTransport transport = new UdsTransport(1, "fake-watcher-io", Executors.newCachedThreadPool());
    private final Set<String> seen = ConcurrentHashMap.newKeySet();
    private final Map<String, FakeKubelet.PluginConnection> plugins = new ConcurrentHashMap<>();
    private final List<FakeKubelet.Registration> registrations = new CopyOnWriteArrayList<>();
    private final Thread thread;
    private volatile String refuseWith;
    private volatile long restartedNanos;

    public FakePluginWatcher(Path dir) {
        this.dir = dir;
        this.thread = new Thread(this::run, "fake-plugin-watcher");
        thread.setDaemon(true);
        thread.start();
    }

    /** Refuse the next registrations with this error (null accepts again). */
    public void refuseWith(String error) {
        refuseWith = error;
    }

    public synchronized void restart() {
        plugins.values().forEach(FakeKubelet.PluginConnection::close);
        plugins.clear();
        seen.clear();
        restartedNanos = System.nanoTime();
    }

    public long restartedNanos() {
        return restartedNanos;
    }

    /**
     * Scans the directory whenever a socket is created or removed (inotify through a {@code WatchService}, as
     * kubelet's fsnotify watcher), and at the latest every 5 ms, which covers {@link #restart()} and a directory
     * that does not exist yet.
     */
    private void run() {
        try (WatchService watch = dir.getFileSystem().newWatchService()) {
            WatchKey key = null;
            while (!Thread.currentThread().isInterrupted()) {
                if (key == null || !key.isValid()) {
                    key = register(watch);
                }
                scan();
                WatchKey fired = watch.poll(5, TimeUnit.MILLISECONDS);
                if (fired != null) {
                    fired.pollEvents();
                    fired.reset();
                }
            }
        } catch (InterruptedException | java.nio.file.ClosedWatchServiceException e) {
            return;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private WatchKey register(WatchService watch) {
        try {
            return dir.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
        } catch (IOException missing) {
            return null;
        }
    }

    private void scan() {
        try (Stream<Path> files = Files.list(dir)) {
            Set<String> present = new HashSet<>();
            for (Path socket : files.filter(p -> p.toString().endsWith(".sock")).toList()) {
                String id = socket + "@" + SocketIdentity.of(socket).orElse("");
                present.add(id);
                if (seen.add(id)) {
                    discover(socket);
                }
            }
            seen.retainAll(present);
        } catch (IOException missing) {
            // not there yet: the next round looks again
        }
    }

    private synchronized void discover(Path socket) {
        long now = System.nanoTime();
        ManagedChannel channel = transport.dial(socket);
        try {
            var registration = RegistrationGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS);
            PluginInfo info = registration.getInfo(InfoRequest.getDefaultInstance());
            String problem = refuseWith;
            if (problem == null && !info.getType().equals("DevicePlugin")) {
                problem = "type " + info.getType() + " is not DevicePlugin";
            }
            if (problem == null && !info.getSupportedVersionsList().contains("v1beta1")) {
                problem = "no supported version in " + info.getSupportedVersionsList();
            }
            if (problem == null) {
                problem = ResourceNames.problem(info.getName()).orElse(null);
            }
            if (problem != null) {
                registration.notifyRegistrationStatus(RegistrationStatus.newBuilder().setPluginRegistered(false)
                        .setError(problem).build());
                channel.shutdownNow();
                return;
            }
            FakeKubelet.PluginConnection connection = new FakeKubelet.PluginConnection(
                    transport.dial(Path.of(info.getEndpoint())));
            connection.stub().getDevicePluginOptions(Empty.getDefaultInstance());
            FakeKubelet.PluginConnection old = plugins.put(info.getName(), connection);
            if (old != null) {
                old.close();
            }
            Context.ROOT.run(connection::watch);
            registration.notifyRegistrationStatus(RegistrationStatus.newBuilder().setPluginRegistered(true).build());
            registrations.add(new FakeKubelet.Registration(info.getName(), info.getEndpoint(), "v1beta1", now));
            channel.shutdownNow();
        } catch (RuntimeException e) {
            channel.shutdownNow();
            seen.removeIf(id -> id.startsWith(socket + "@"));          // try again on the next scan
        }
    }

    public long registrations(String resource) {
        return registrations.stream().filter(r -> r.resource().equals(resource)).count();
    }

    public FakeKubelet.Registration awaitRegistrations(String resource, long count, Duration timeout) {
        try {
            return org.awaitility.Awaitility.await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                    .atMost(timeout).until(() -> {
                        List<FakeKubelet.Registration> mine = registrations.stream()
                                .filter(r -> r.resource().equals(resource)).toList();
                        return mine.size() >= count ? mine.get(mine.size() - 1) : null;
                    }, java.util.Objects::nonNull);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(resource + " not found by the plugin watcher " + count + " time(s) within "
                    + timeout + "; registrations: " + registrations);
        }
    }

    public FakeKubelet.PluginConnection plugin(String resource) {
        FakeKubelet.PluginConnection c = plugins.get(resource);
        if (c == null) {
            throw new AssertionError("no plugin " + resource + " connected");
        }
        return c;
    }

    @Override
    public void close() {
        thread.interrupt();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        plugins.values().forEach(FakeKubelet.PluginConnection::close);
        transport.close(2000);
    }
}
