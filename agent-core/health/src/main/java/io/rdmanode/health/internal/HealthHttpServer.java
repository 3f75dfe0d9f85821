// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.rdmanode.agent.Handover;
import io.rdmanode.agent.LogText;
import io.rdmanode.health.HttpEndpoint;
import io.rdmanode.health.StatusSection;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's HTTP endpoint (on Netty, see {@link NettyHttpTransport} for why): the built-in {@code /healthz},
 * {@code /readyz} and {@code /status}, whiteboard {@link HttpEndpoint}s added and removed while it runs, and the
 * {@link StatusSection}s of {@code /status}. {@code /healthz} and {@code /readyz} answer on the event loop from
 * the cached health result ({@link HealthCache}), so neither slow clients nor slow handlers nor hung checks delay
 * them; {@code /status} and endpoints run on a bounded pool of handler threads (503 with {@code Retry-After} when
 * its queue is full). Requests with a body are refused (413): every path is read-only. Binds in the constructor;
 * {@link #close()} returns within about a second. Unknown paths answer 404.
 */
final class HealthHttpServer implements AutoCloseable, HttpConnection.Router {

    static final Set<String> BUILT_IN_PATHS = Set.of("/healthz", "/readyz", "/startedz", "/status");

    private static final Logger LOG = LoggerFactory.getLogger(HealthHttpServer.class);

    private final HttpSettings settings;
    private final HttpServerStats stats = new HttpServerStats();
    private final ThreadPoolExecutor handlers;
    private final NettyHttpTransport transport;
    private final URI uri;
    private final NamedWhiteboard<HttpEndpoint> endpoints = new NamedWhiteboard<>("http endpoint", BUILT_IN_PATHS);
    private final NamedWhiteboard<StatusSection> sections =
            new NamedWhiteboard<>("status section", StatusDocument.MEMBERS);
    private final HealthCache cache;
    private final HealthResponses responses;
    private volatile Map<String, EndpointHandler> routes = Map.of();
    private boolean closed;

    /** Binds and starts serving with the default bounds and {@code threads} handler threads. */
    HealthHttpServer(InetSocketAddress address, int threads, HealthSources sources, Clock clock) {
        this(address, HttpSettings.DEFAULTS.withThreads(threads), sources, clock);
    }

    /** Binds and starts serving; port 0 in {@code address} picks a free port, see {@link #uri()}. */
    HealthHttpServer(InetSocketAddress address, HttpSettings settings, HealthSources sources, Clock clock) {
        this(address, OptionalInt::empty, settings, sources, clock);
    }

    /** @param take a predecessor's listening descriptor for {@code address} (handover), else it binds */
    HealthHttpServer(InetSocketAddress address, Supplier<OptionalInt> take, HttpSettings settings,
                     HealthSources sources, Clock clock) {
        this.settings = settings;
        WarnOnce warnOnce = new WarnOnce();
        this.cache = new HealthCache(sources, settings.checkTimeout(), settings.refreshInterval(), warnOnce);
        this.responses = new HealthResponses(sources, sections, clock, warnOnce, () -> stats.status(settings));
        AtomicInteger count = new AtomicInteger();
        this.handlers = new ThreadPoolExecutor(settings.threads(), settings.threads(), 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(settings.queue()), task -> {
                    Thread thread = new Thread(task, "rdma-agent-health-http-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        try {
            this.transport = new NettyHttpTransport(address, take, settings, stats, this);
        } catch (RuntimeException e) {
            handlers.shutdownNow();
            cache.close();
            throw e;
        }
        this.uri = uri(address.getHostString(), transport.port());
    }

    /** Something readiness depends on changed: refresh the cached result now, not at the next interval. */
    void refreshHealthSoon() {
        cache.refreshSoon();
    }

    /** The base URL actually bound, e.g. {@code http://127.0.0.1:40123}. */
    URI uri() {
        return uri;
    }

    int port() {
        return uri.getPort();
    }

    /** The listening socket as a door a successor can take; empty without epoll. */
    Optional<Handover.Door> door() {
        OptionalInt fd = transport.fd();
        if (fd.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Handover.Door() {
            @Override
            public int fd() {
                return transport.fd().orElse(-1);
            }

            @Override
            public void handedOver() {
                transport.stopAccepting();
                LOG.info("http endpoint {} handed to a successor", uri);
            }

            @Override
            public boolean takeBack(int descriptor) {
                boolean back = transport.takeBack(descriptor);
                if (back) {
                    LOG.warn("http endpoint {} accepts here again: the successor it was handed to died", uri);
                }
                return back;
            }
        });
    }

    boolean handedOver() {
        return transport.handedOver();
    }

    @Override
    public boolean keepsConnections() {
        return !transport.handedOver();
    }

    /** The server's own figures (the {@code http} member of {@code /status}). */
    Map<String, Object> stats() {
        return stats.status(settings);
    }

    @Override
    public void route(HttpConnection connection, HttpRequest request) {
        DecoderResult decoded = request.decoderResult();
        if (decoded.isFailure()) {
            refuseHead(connection, decoded.cause());
            return;
        }
        URI target;
        try {
            target = new URI(request.uri());
        } catch (URISyntaxException e) {
            stats.badRequests.increment();
            connection.respond(400, "bad request target: " + e.getReason(), false);
            return;
        }
        String path = target.getPath() == null || target.getPath().isEmpty() ? "/" : target.getPath();
        String method = request.method().name();
        boolean body = hasBody(request);
        boolean keepAlive = HttpUtil.isKeepAlive(request) && !body;  // an unread body leaves the stream unusable
        if (BUILT_IN_PATHS.contains(path)) {
            builtIn(connection, path, target, method, body, keepAlive);
            return;
        }
        EndpointHandler handler = routes.get(path);
        if (handler == null) {
            connection.respond(404, "not found: " + path, keepAlive);
        } else if (body) {
            refuseBody(connection, path);
        } else {
            offload(connection, () -> handler.handle(new NettyHttpExchange(connection, request, target, keepAlive,
                    settings.writeTimeout().toMillis(), handler)));
        }
    }

    private void builtIn(HttpConnection connection, String path, URI target, String method, boolean body,
                         boolean keepAlive) {
        boolean head = "HEAD".equals(method);
        if (!head && !"GET".equals(method)) {
            FullHttpResponse refused = HttpConnection.text(405, "method " + method + " not allowed on " + path);
            refused.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
            connection.respond(refused, keepAlive);
            return;
        }
        if (body) {
            refuseBody(connection, path);
            return;
        }
        java.util.Optional<HealthResponses.Response> otherInstance = Exchanges.queryParameter(target, "pid")
                .flatMap(HealthResponses::otherInstance);
        if (otherInstance.isPresent() && !"/healthz".equals(path)) {
            connection.respond(Exchanges.full(otherInstance.get(), head), keepAlive);
            return;
        }
        switch (path) {
            case "/healthz" -> cache.whenReady(s -> connection.respond(Exchanges.full(
                    responses.healthz(s, Exchanges.hasQueryParameter(target, "verbose")), head), keepAlive));
            case "/readyz" -> cache.whenReady(s -> connection.respond(Exchanges.full(responses.readyz(s), head),
                    keepAlive));
            case "/startedz" -> cache.whenReady(s -> connection.respond(Exchanges.full(responses.startedz(s), head),
                    keepAlive));
            default -> cache.whenReady(s -> offload(connection, () -> connection.respond(
                    Exchanges.full(answer(path, () -> responses.status(s)), head), keepAlive)));
        }
    }

    /** A failure while computing the answer becomes a one-line 500, with the stack trace in the log. */
    private static HealthResponses.Response answer(String path, Supplier<HealthResponses.Response> compute) {
        try {
            return compute.get();
        } catch (RuntimeException e) {
            LOG.warn("request failed path={}", path, e);
            return new HealthResponses.Response(500, HealthResponses.TEXT,
                    "internal error on " + path + ": " + Exchanges.describe(e) + "\n");
        }
    }

    private void offload(HttpConnection connection, Runnable task) {
        try {
            handlers.execute(task);
        } catch (RejectedExecutionException e) {
            stats.busy.increment();
            stats.refusals.warn("busy", "answered 503: {} handler threads busy and {} requests waiting",
                    settings.threads(), settings.queue());
            FullHttpResponse busy = HttpConnection.text(503, "busy: every handler thread is taken; retry later");
            busy.headers().set(HttpHeaderNames.RETRY_AFTER, "1");
            connection.respond(busy, false);
        }
    }

    private void refuseHead(HttpConnection connection, Throwable cause) {
        if (cause instanceof TooLongHttpHeaderException || cause instanceof TooLongHttpLineException) {
            stats.oversizeHeads.increment();
            boolean line = cause instanceof TooLongHttpLineException;
            stats.refusals.warn("oversize-head", "refused http request(s) with a request {} over {} bytes, latest from {}",
                    line ? "line" : "head", settings.maxHeaderSize(), connection.context().channel().remoteAddress());
            connection.respond(line ? 414 : 431, (line ? "request line" : "request header fields") + " larger than "
                    + settings.maxHeaderSize() + " bytes", false);
        } else {
            stats.badRequests.increment();
            stats.refusals.warn("bad-request", "refused malformed http request(s), latest from {}: {}",
                    connection.context().channel().remoteAddress(), LogText.escape(String.valueOf(cause.getMessage())));
            connection.respond(400, "bad request", false);
        }
    }

    private void refuseBody(HttpConnection connection, String path) {
        stats.bodiesRefused.increment();
        connection.respond(413, "request bodies are not accepted on " + path, false);
    }

    private static boolean hasBody(HttpRequest request) {
        if (HttpUtil.isTransferEncodingChunked(request)) {
            return true;
        }
        try {
            return HttpUtil.getContentLength(request, 0L) > 0;
        } catch (NumberFormatException e) {
            return true;
        }
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
                Map<String, EndpointHandler> next = new HashMap<>(routes);
                next.remove(removal.removed().name());
                routes = Map.copyOf(next);
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
        Map<String, EndpointHandler> next = new HashMap<>(routes);
        next.put(entry.name(), new EndpointHandler(entry.service(), entry.name(), entry.owner()));
        routes = Map.copyOf(next);
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

    /** Closes the port and every connection at once; requests in flight get up to half a second to finish. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        handlers.shutdown();
        transport.close();
        cache.close();
        try {
            if (!handlers.awaitTermination(500, TimeUnit.MILLISECONDS)) {
                handlers.shutdownNow();
            }
        } catch (InterruptedException e) {
            handlers.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private static URI uri(String host, int port) {
        String literal = host.contains(":") ? "[" + host + "]" : host;
        return URI.create("http://" + literal + ":" + port);
    }
}
