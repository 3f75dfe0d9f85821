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
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device-plugin host as a plain class: shared transport, one registrar thread that serves sockets again
 * and (re-)registers, the directory watch that wakes it, and a periodic safety-net check.
 */
public final class KubeletDevicePluginHost implements DevicePluginHost, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KubeletDevicePluginHost.class);
    private static final long FIRST_RETRY_MILLIS = 50;

    private final HostSettings settings;
    private final ExecutorService rpc;
    private final ScheduledExecutorService registrar;
    private final UdsTransport transport;
    private final PluginDirWatcher watcher;
    private final Map<String, DevicePluginServer> servers = new ConcurrentSkipListMap<>();
    private final AtomicBoolean reconcilePending = new AtomicBoolean();

    /**
     * The device-plugins directory belongs to kubelet and is not created here; while it is missing, plugins
     * wait (and are served and registered once it appears).
     *
     * @throws IOException when no file watch can be created
     */
    public KubeletDevicePluginHost(HostSettings settings) throws IOException {
        this.settings = settings.resolved();
        LOG.info("device-plugin host registration={} sockets in {}", this.settings.registration(),
                this.settings.socketDir());
        this.rpc = Executors.newCachedThreadPool(named("rdma-agent-kubelet-rpc-"));
        this.registrar = Executors.newSingleThreadScheduledExecutor(named("rdma-agent-kubelet-registrar"));
        this.transport = new UdsTransport(this.settings.ioThreads(), "rdma-agent-kubelet-io", rpc);
        this.watcher = new PluginDirWatcher(this.settings.socketDir(), this::reconcileAllSoon);
        watcher.start();
        registrar.scheduleWithFixedDelay(this::reconcileAll, this.settings.resyncInterval(),
                this.settings.resyncInterval(), TimeUnit.MILLISECONDS);
    }

    @Override
    public ServedResource serve(DevicePlugin plugin) {
        String resource = plugin.resourceName();
        ResourceNames.problem(resource).ifPresent(p -> {
            throw new IllegalArgumentException(p);
        });
        DevicePluginServer server = new DevicePluginServer(plugin, settings, transport,
                () -> servers.remove(resource));
        if (servers.putIfAbsent(resource, server) != null) {
            throw new IllegalArgumentException("resource " + resource + " is already served");
        }
        try {
            server.start();
        } catch (DevicePluginException e) {
            servers.remove(resource, server);
            throw e;
        }
        LOG.info("serving resource={} socket={}", resource, server.socket());
        submit(() -> reconcile(server), 0);
        return server;
    }

    private void reconcileAllSoon() {
        if (reconcilePending.compareAndSet(false, true)) {
            submit(() -> {
                reconcilePending.set(false);
                reconcileAll();
            }, 0);
        }
    }

    private void reconcileAll() {
        servers.values().forEach(this::reconcile);
    }

    private void reconcile(DevicePluginServer server) {
        try {
            if (!server.reconcile()) {
                long delay = Math.min(settings.resyncInterval(),
                        FIRST_RETRY_MILLIS << Math.min(server.failureStreak(), 10));
                submit(() -> reconcile(server), delay);
            }
        } catch (RuntimeException e) {
            LOG.error("registration check failed resource={}", server.resourceName(), e);
        }
    }

    private void submit(Runnable task, long delayMillis) {
        try {
            registrar.schedule(task, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("host stopping; registration check dropped");
        }
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
        m.put("registration", settings.registration().name().toLowerCase(java.util.Locale.ROOT));
        m.put("socketDir", settings.socketDir().toString());
        if (!settings.watcher()) {
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

    /** Stops every server (each bounded by the shutdown timeout), the watch, the registrar and the event loops. */
    @Override
    public void close() {
        watcher.close();
        registrar.shutdownNow();
        List.copyOf(servers.values()).forEach(DevicePluginServer::close);
        try {
            registrar.awaitTermination(settings.shutdownTimeout(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        rpc.shutdown();
        transport.close(settings.shutdownTimeout());
        rpc.shutdownNow();
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
