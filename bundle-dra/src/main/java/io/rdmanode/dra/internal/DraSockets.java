// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.grpc.BindableService;
import io.rdmanode.kubelet.UnixSocketServers;
import io.rdmanode.kubelet.UnixSocketServers.UnixSocketServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's two sockets. The DRA socket listens before the registration socket appears, because kubelet dials
 * the endpoint as soon as it has registered the driver. Both are {@code rw-------}: kubelet runs as root. A
 * socket file that vanishes (a kubelet restart that cleans its directories, an operator's {@code rm}) is served
 * again at the next check: the DRA socket first, then a fresh registration socket, which kubelet's plugin watcher
 * sees as a new plugin and registers again.
 */
final class DraSockets implements AutoCloseable {

    static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final Logger LOG = LoggerFactory.getLogger(DraSockets.class);

    private final UnixSocketServers servers;
    private final DraSettings settings;
    private final List<BindableService> draServices;
    private final BindableService registration;
    private final ScheduledExecutorService checker;
    private UnixSocketServer dra;
    private UnixSocketServer reg;
    private boolean closed;

    /**
     * Serves both sockets now and checks for them every {@code checkMillis}.
     *
     * @throws IOException when a socket cannot be bound (the directories are created first)
     */
    DraSockets(UnixSocketServers servers, DraSettings settings, List<BindableService> draServices,
               BindableService registration, long checkMillis) throws IOException {
        this.servers = servers;
        this.settings = settings;
        this.draServices = List.copyOf(draServices);
        this.registration = registration;
        removeStale();
        ensure();
        this.checker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rdma-agent-dra-sockets");
            t.setDaemon(true);
            return t;
        });
        checker.scheduleWithFixedDelay(this::check, checkMillis, checkMillis, TimeUnit.MILLISECONDS);
    }

    private void check() {
        try {
            ensure();
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot serve the DRA sockets again (next try in a moment): {}", e.toString());
        }
    }

    /** Serves whichever socket is missing; a new DRA socket brings a new registration socket after it. */
    synchronized void ensure() throws IOException {
        if (closed) {
            return;
        }
        if (dra == null || !exists(dra.socket())) {
            closeQuietly(reg);
            reg = null;
            closeQuietly(dra);
            dra = null;
            Files.createDirectories(settings.draSocket().getParent());
            dra = servers.serve(settings.draSocket(), OWNER_ONLY, draServices);
        }
        if (reg == null || !exists(reg.socket())) {
            closeQuietly(reg);
            reg = null;
            Files.createDirectories(settings.registrationSocket().getParent());
            reg = servers.serve(settings.registrationSocket(), OWNER_ONLY, List.of(registration));
        }
    }

    /**
     * An instance that began to take over from this one died before it was ready: kubelet keeps its registration
     * (the newest) until its socket file goes, and calls its dead endpoint meanwhile. Its sockets, which nobody
     * listens on any more, are removed: kubelet's plugin watcher deregisters it and calls this instance again.
     */
    synchronized void successorLost() {
        if (!closed) {
            removeStale();
        }
    }

    /**
     * Removes the sockets an earlier instance of this driver left when it was killed: each one of this driver's
     * socket names (any instance) other than this instance's, in kubelet's registry directory and the DRA socket
     * directory, that nobody listens on (a connect is refused). A socket a live instance serves (a predecessor
     * during a handover) is left alone: kubelet may still be using it.
     */
    private void removeStale() {
        for (Path dir : List.of(settings.registryDir(), settings.draSocket().getParent())) {
            if (!Files.isDirectory(dir)) {
                continue;
            }
            try (java.util.stream.Stream<Path> files = Files.list(dir)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    if (f.equals(settings.registrationSocket()) || f.equals(settings.draSocket())
                            || !settings.ownSocketName(f) || !nobodyListens(f)) {
                        continue;
                    }
                    Files.deleteIfExists(f);
                    LOG.info("removed stale DRA socket {} (left by an earlier instance; nobody listens on it)", f);
                }
            } catch (IOException e) {
                LOG.warn("cannot look for stale DRA sockets in {}: {}", dir, e.toString());
            }
        }
    }

    /** True only when connecting is refused: the file is a socket nobody listens on (not merely busy). */
    static boolean nobodyListens(Path socket) {
        try (java.nio.channels.SocketChannel ch = java.nio.channels.SocketChannel.open(
                java.net.StandardProtocolFamily.UNIX)) {
            ch.configureBlocking(false);
            ch.connect(java.net.UnixDomainSocketAddress.of(socket));
            return false;
        } catch (java.net.ConnectException refused) {
            return true;
        } catch (IOException | RuntimeException busyOrOther) {
            return false;
        }
    }

    private static boolean exists(Path socket) {
        return Files.exists(socket, LinkOption.NOFOLLOW_LINKS);
    }

    private static void closeQuietly(UnixSocketServer server) {
        if (server != null) {
            server.close();
        }
    }

    /** Registration socket first: kubelet deregisters the driver and no longer dials the DRA socket. */
    @Override
    public void close() {
        checker.shutdownNow();
        synchronized (this) {
            closed = true;
            closeQuietly(reg);
            closeQuietly(dra);
            reg = null;
            dra = null;
        }
    }
}
