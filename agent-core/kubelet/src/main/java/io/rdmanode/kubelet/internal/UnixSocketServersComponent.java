// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.grpc.BindableService;
import io.grpc.Server;
import io.rdmanode.kubelet.UnixSocketServers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link UnixSocketServers} for other bundles, on an event loop of its own (one thread: local control APIs
 * carry little traffic) so that a device-plugin host restart never stops them. Servers still open when the
 * component stops are closed with it.
 */
@Component(service = UnixSocketServers.class)
public final class UnixSocketServersComponent implements UnixSocketServers {

    private static final Logger LOG = LoggerFactory.getLogger(UnixSocketServersComponent.class);
    private static final long SHUTDOWN_MILLIS = 5000;
    /** The largest message a client may send (grpc-java answers a longer one RESOURCE_EXHAUSTED from its prefix). */
    static final int MAX_MESSAGE_BYTES = 1 << 20;
    /** HTTP/2 streams one connection may open at once. */
    static final int MAX_CALLS_PER_CONNECTION = 16;

    private final ExecutorService handlers;
    private final UdsTransport transport;
    private final Set<Served> open = ConcurrentHashMap.newKeySet();

    public UnixSocketServersComponent() {
        AtomicInteger n = new AtomicInteger();
        this.handlers = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "rdma-agent-uds-rpc-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.transport = new UdsTransport(1, "rdma-agent-uds-io", handlers);
    }

    @Override
    public UnixSocketServer serve(Path socket, Set<PosixFilePermission> permissions, List<BindableService> services)
            throws IOException {
        int bytes = socket.toString().getBytes(StandardCharsets.UTF_8).length;
        if (bytes > ResourceNames.SUN_PATH_MAX) {
            throw new IllegalArgumentException("socket path " + socket + " is " + bytes + " bytes; sun_path holds "
                    + ResourceNames.SUN_PATH_MAX);
        }
        if (services.isEmpty()) {
            throw new IllegalArgumentException("no service to serve on " + socket);
        }
        // Netty's bind unlinks whatever is at the path first, a live server's socket included: look first.
        if (Files.exists(socket, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            if (!StaleSockets.isDeadSocket(socket)) {
                throw new java.nio.file.FileAlreadyExistsException(socket.toString(), null,
                        "in use by a running server, or not a socket");
            }
            Files.delete(socket);
            LOG.info("replaced stale socket {}", socket);
        }
        // Bounded like the device-plugin sockets' transport: grpc-java's default of 4 MiB per message let 30
        // unfinished requests on one of these sockets (DRA's) take the agent's whole direct memory, which every
        // other gRPC and HTTP connection draws on. kubelet's largest request here is a few KiB.
        Server server = transport.serve(socket, MAX_MESSAGE_BYTES, MAX_CALLS_PER_CONNECTION,
                services.stream().map(BindableService::bindService).toArray(io.grpc.ServerServiceDefinition[]::new));
        try {
            Files.setPosixFilePermissions(socket, permissions);
        } catch (IOException | RuntimeException e) {
            server.shutdownNow();
            Files.deleteIfExists(socket);
            throw e;
        }
        Served served = new Served(socket, server);
        open.add(served);
        LOG.info("serving {} on {}", services.stream().map(s -> s.bindService().getServiceDescriptor().getName())
                .toList(), socket);
        return served;
    }

    @Deactivate
    public void stop() {
        List.copyOf(open).forEach(Served::close);
        transport.close(SHUTDOWN_MILLIS);
        handlers.shutdownNow();
    }

    private final class Served implements UnixSocketServer {
        private final Path socket;
        private final Server server;
        private boolean closed;

        Served(Path socket, Server server) {
            this.socket = socket;
            this.server = server;
        }

        @Override
        public Path socket() {
            return socket;
        }

        @Override
        public synchronized void close() {
            if (closed) {
                return;
            }
            closed = true;
            open.remove(this);
            server.shutdown();
            try {
                if (!server.awaitTermination(SHUTDOWN_MILLIS, TimeUnit.MILLISECONDS)) {
                    LOG.warn("forcing stop of {}: calls still running after {} ms", socket, SHUTDOWN_MILLIS);
                    server.shutdownNow();
                }
            } catch (InterruptedException e) {
                server.shutdownNow();
                Thread.currentThread().interrupt();
            }
            try {
                Files.deleteIfExists(socket);
            } catch (IOException e) {
                LOG.warn("cannot delete {}: {}", socket, e.getMessage());
            }
        }
    }
}
