// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import com.sun.net.httpserver.HttpServer;
import io.rdmanode.health.HttpEndpoint;
import io.rdmanode.health.StatusSection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's HTTP endpoint on the JDK's {@link HttpServer}: the built-in {@code /healthz}, {@code /readyz} and
 * {@code /status}, whiteboard {@link HttpEndpoint}s added and removed while it runs, and the
 * {@link StatusSection}s of {@code /status}. Binds in the constructor; {@link #close()} returns within about a
 * second. Unknown paths answer 404.
 */
final class HealthHttpServer implements AutoCloseable {

    static final Set<String> BUILT_IN_PATHS = Set.of("/healthz", "/readyz", "/status");

    private static final Logger LOG = LoggerFactory.getLogger(HealthHttpServer.class);

    private final HttpServer server;
    private final ExecutorService executor;
    private final URI uri;
    private final NamedWhiteboard<HttpEndpoint> endpoints = new NamedWhiteboard<>("http endpoint", BUILT_IN_PATHS);
    private final NamedWhiteboard<StatusSection> sections =
            new NamedWhiteboard<>("status section", StatusDocument.MEMBERS);
    private final HealthResponses responses;
    private boolean closed;

    /** Binds and starts serving; port 0 in {@code address} picks a free port, see {@link #uri()}. */
    HealthHttpServer(InetSocketAddress address, int threads, HealthSources sources, Clock clock) {
        this(address, threads, sources, clock, CheckRunner.DEFAULT_TIMEOUT);
    }

    /** @param checkTimeout the bound within which {@code /healthz} and {@code /readyz} answer, hung checks or not */
    HealthHttpServer(InetSocketAddress address, int threads, HealthSources sources, Clock clock,
                     Duration checkTimeout) {
        HealthResponses responses = new HealthResponses(sources, sections, clock, checkTimeout);
        this.responses = responses;
        try {
            this.server = HttpServer.create(address, 0);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind http endpoint to " + address.getHostString() + ":"
                    + address.getPort() + ": " + e.getMessage(), e);
        }
        AtomicInteger count = new AtomicInteger();
        this.executor = Executors.newFixedThreadPool(threads, task -> {
            Thread thread = new Thread(task, "rdma-agent-health-http-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.createContext("/", Exchanges::notFound);
        server.createContext("/healthz", new BuiltInHandler("/healthz",
                exchange -> responses.healthz(Exchanges.hasQueryParameter(exchange, "verbose"))));
        server.createContext("/readyz", new BuiltInHandler("/readyz", exchange -> responses.readyz()));
        server.createContext("/status", new BuiltInHandler("/status", exchange -> responses.status()));
        server.start();
        this.uri = uri(address.getHostString(), server.getAddress().getPort());
    }

    /** The base URL actually bound, e.g. {@code http://127.0.0.1:40123}. */
    URI uri() {
        return uri;
    }

    int port() {
        return uri.getPort();
    }

    /** Serves the endpoint on its path unless the path is taken (then it waits, see {@link NamedWhiteboard}). */
    synchronized void addEndpoint(HttpEndpoint endpoint, String owner) {
        String path = endpoint.path();
        if (path == null || !path.startsWith("/") || path.equals("/") || path.contains("?")) {
            LOG.warn("refused http endpoint path={} owner={}: not an absolute path below /", path, owner);
            return;
        }
        if (!closed && endpoints.add(path, endpoint, owner)) {
            serve(new NamedWhiteboard.Entry<>(path, endpoint, owner));
        }
    }

    synchronized void removeEndpoint(HttpEndpoint endpoint) {
        endpoints.remove(endpoint).ifPresent(removal -> {
            if (removal.wasActive() && !closed) {
                server.removeContext(removal.removed().name());
                LOG.info("http endpoint removed path={} owner={}", removal.removed().name(), removal.removed().owner());
                removal.successor().ifPresent(this::serve);
            }
        });
    }

    /**
     * The endpoint's service properties changed (its component applied a configuration edit in place): it moves
     * only when its path changed; otherwise it keeps serving, with no gap.
     */
    synchronized void updateEndpoint(HttpEndpoint endpoint, String owner) {
        if (endpoints.nameOf(endpoint).filter(name -> name.equals(endpoint.path())).isPresent()) {
            return;
        }
        removeEndpoint(endpoint);
        addEndpoint(endpoint, owner);
    }

    private void serve(NamedWhiteboard.Entry<HttpEndpoint> entry) {
        server.createContext(entry.name(), new EndpointHandler(entry.service(), entry.name(), entry.owner()));
        LOG.info("http endpoint added url={}{} owner={}", uri, entry.name(), entry.owner());
    }

    /** Adds a {@code /status} member; a name the endpoint uses itself or another section has is refused. */
    void addSection(StatusSection section, String owner) {
        String name = section.name();
        if (name == null || name.isBlank()) {
            LOG.warn("refused status section owner={}: it has no name", owner);
            return;
        }
        sections.add(name, section, owner);
    }

    void removeSection(StatusSection section) {
        sections.remove(section);
    }

    /**
     * Stops at once rather than with a grace delay: on JDK 17 {@code HttpServer.stop(n)} waits the full n
     * seconds even when idle, and every configuration change or bundle update goes through here. Requests in
     * flight get up to a second to finish on the executor.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        server.stop(0);
        responses.close();
        executor.shutdown();
        try {
            if (!executor.awaitTermination(1, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private static URI uri(String host, int port) {
        String literal = host.contains(":") ? "[" + host + "]" : host;
        return URI.create("http://" + literal + ":" + port);
    }
}
