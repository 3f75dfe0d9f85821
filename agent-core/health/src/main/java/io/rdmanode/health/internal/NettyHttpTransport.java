// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import java.util.concurrent.TimeUnit;

/**
 * The listening socket and its one event loop, on Netty's HTTP/1.1 codec (issue 21). Why Netty: the JDK's
 * {@code HttpServer} gave each connection a request thread while it read the head and had no read timeout, so
 * 2 to 4 clients that connected and sent nothing silenced {@code /healthz} and kubelet restarted a healthy
 * agent. Netty's event loop holds no thread per connection (200 silent clients cost 200 idle channels), its
 * codec bounds the request line and headers, and netty-codec-http 4.2 already ships as a bundle for gRPC, so it
 * adds no jar; Jetty 12 would have added several MB of bundles and start-up time for the same controls.
 *
 * <p>Every accepted connection past {@link HttpSettings#maxConnections()} is closed at once and counted; the
 * others get the codec (head bounded by {@link HttpSettings#maxHeaderSize()}) and an {@link HttpConnection}.
 * Epoll where it loads, because only epoll can adopt a listening descriptor handed over by a predecessor and show
 * its own to a successor (issue 27); NIO otherwise, which needs no native library and does without handover.
 */
final class NettyHttpTransport implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NettyHttpTransport.class);
    private final EventLoopGroup loop;
    private final ChannelGroup connections;
    private final ServerBootstrap bootstrap;
    private volatile Channel server;
    private volatile boolean handedOver;

    NettyHttpTransport(InetSocketAddress address, HttpSettings settings, HttpServerStats stats,
                       HttpConnection.Router router) {
        this(address, OptionalInt::empty, settings, stats, router);
    }

    /**
     * @param take a predecessor's listening descriptor for {@code address} (handover, needs epoll), else it binds
     *             anew; asked only once the event loop is up, so that the socket waits unserved as briefly as can
     *             be (the predecessor stops accepting when it is taken)
     */
    NettyHttpTransport(InetSocketAddress address, Supplier<OptionalInt> take, HttpSettings settings,
                       HttpServerStats stats, HttpConnection.Router router) {
        boolean epoll = EpollTransport.available();
        this.loop = new MultiThreadIoEventLoopGroup(1, task -> {
            Thread thread = new FastThreadLocalThread(task, "rdma-agent-health-http-io");
            thread.setDaemon(true);
            return thread;
        }, epoll ? EpollTransport.ioHandler() : NioIoHandler.newFactory());
        this.connections = new DefaultChannelGroup("rdma-agent-health-http", loop.next());
        HttpDecoderConfig decoder = new HttpDecoderConfig()
                .setMaxInitialLineLength(settings.maxHeaderSize())
                .setMaxHeaderSize(settings.maxHeaderSize())
                .setMaxChunkSize(8192);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(loop)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        if (stats.open.incrementAndGet() > settings.maxConnections()) {
                            stats.open.decrementAndGet();
                            stats.refusedAtBound.increment();
                            stats.refusals.warn("connection-bound", "refused http connection(s): {}"
                                    + " open, the bound; latest from {}", settings.maxConnections(),
                                    channel.remoteAddress());
                            channel.close();
                            return;
                        }
                        stats.accepted.increment();
                        connections.add(channel);
                        channel.closeFuture().addListener(f -> stats.open.decrementAndGet());
                        HttpConnection connection = new HttpConnection(router, settings, stats);
                        channel.pipeline().addLast(connection.rawBytesWatcher(), new HttpServerCodec(decoder),
                                connection);
                    }
                });
        if (epoll) {
            warmUp(decoder, settings, stats, router);
        }
        // Without a channel yet: a socket taken back after a handover that failed gets the same handling.
        this.bootstrap = bootstrap.clone();
        OptionalInt adopted = epoll ? take.get() : OptionalInt.empty();
        if (adopted.isPresent()) {
            int fd = adopted.getAsInt();
            bootstrap.channelFactory(() -> EpollTransport.adopt(fd));
        } else {
            bootstrap.channel(epoll ? EpollTransport.serverChannel() : NioServerSocketChannel.class);
        }
        // An adopted socket is bound and listening already: registering it starts accepting on its backlog.
        ChannelFuture bind = (adopted.isPresent() ? bootstrap.register() : bootstrap.bind(address))
                .awaitUninterruptibly();
        if (!bind.isSuccess()) {
            loop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            Throwable cause = bind.cause();
            throw new UncheckedIOException("cannot bind http endpoint to " + address.getHostString() + ":"
                    + address.getPort() + ": " + reason(cause),
                    cause instanceof IOException io ? io : new IOException(cause));
        }
        this.server = bind.channel();
    }

    /**
     * One {@code /healthz} through a connection's handlers on an in-memory channel, before the socket can be
     * taken: the first request a successor answers then finds the codec's and the endpoint's classes loaded
     * (measured on a loaded 2-core machine, the cold path kept it from answering for about 150 ms). Counts
     * nothing: the connection figures are kept where connections are accepted.
     */
    private static void warmUp(HttpDecoderConfig decoder, HttpSettings settings, HttpServerStats stats,
                               HttpConnection.Router router) {
        HttpConnection connection = new HttpConnection(router, settings, stats);
        EmbeddedChannel channel = new EmbeddedChannel(connection.rawBytesWatcher(), new HttpServerCodec(decoder),
                connection);
        try {
            channel.writeInbound(Unpooled.copiedBuffer("GET /healthz HTTP/1.1\r\nHost: warm-up\r\n\r\n",
                    StandardCharsets.US_ASCII));
            channel.runPendingTasks();
        } catch (RuntimeException e) {
            LOG.debug("http warm-up: {}", e.toString());
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    /** The errno's text alone: epoll's exceptions say "bind(..) failed with error(-98): " first. */
    private static String reason(Throwable cause) {
        String message = String.valueOf(cause.getMessage());
        return message.replaceFirst("^\\w+\\(\\.\\.\\) failed with error\\(-?\\d+\\): ", "");
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** The listening descriptor, for a successor; empty on NIO. */
    OptionalInt fd() {
        return EpollTransport.available() ? EpollTransport.fd(server) : OptionalInt.empty();
    }

    /**
     * A successor accepts on the socket now: closes this process's listening channel (Netty deregisters it from
     * epoll before it closes the descriptor; the successor's copy keeps the socket listening). Connections open
     * here finish their request and are closed after the response ({@link #handedOver()}).
     */
    void stopAccepting() {
        handedOver = true;
        server.close().syncUninterruptibly();
    }

    boolean handedOver() {
        return handedOver;
    }

    /**
     * The successor that took the socket died before it served it: accepts on {@code fd} (the same listening
     * socket; consumed) again, with the same connection handling. False, the descriptor closed, when the event
     * loop cannot register it (NIO, or the loop is shut down).
     */
    synchronized boolean takeBack(int fd) {
        if (!EpollTransport.available() || loop.isShuttingDown()) {
            EpollTransport.close(fd);
            return false;
        }
        ChannelFuture registered = bootstrap.clone().channelFactory(() -> EpollTransport.adopt(fd)).register()
                .awaitUninterruptibly();
        if (!registered.isSuccess()) {
            LOG.error("http endpoint: cannot accept on the taken-back socket again: {}", reason(registered.cause()));
            registered.channel().close();
            return false;
        }
        server = registered.channel();
        handedOver = false;
        return true;
    }

    /**
     * Closes the listening socket (the port is free again on return) and every connection, explicitly: a
     * connection left open by a loop that shut down would take a kept-alive client's next request and never
     * answer it.
     */
    @Override
    public void close() {
        server.close().syncUninterruptibly();
        connections.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        loop.shutdownGracefully(0, 500, TimeUnit.MILLISECONDS).awaitUninterruptibly(1, TimeUnit.SECONDS);
    }
}
