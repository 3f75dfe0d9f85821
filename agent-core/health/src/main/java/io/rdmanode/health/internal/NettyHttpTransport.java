// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
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
 * NIO rather than epoll: the endpoint needs nothing epoll-only, and NIO needs no native library.
 */
final class NettyHttpTransport implements AutoCloseable {

    private final EventLoopGroup loop;
    private final ChannelGroup connections;
    private final Channel server;

    NettyHttpTransport(InetSocketAddress address, HttpSettings settings, HttpServerStats stats,
                       HttpConnection.Router router) {
        this.loop = new MultiThreadIoEventLoopGroup(1, task -> {
            Thread thread = new FastThreadLocalThread(task, "rdma-agent-health-http-io");
            thread.setDaemon(true);
            return thread;
        }, NioIoHandler.newFactory());
        this.connections = new DefaultChannelGroup("rdma-agent-health-http", loop.next());
        HttpDecoderConfig decoder = new HttpDecoderConfig()
                .setMaxInitialLineLength(settings.maxHeaderSize())
                .setMaxHeaderSize(settings.maxHeaderSize())
                .setMaxChunkSize(8192);
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(loop)
                .channel(NioServerSocketChannel.class)
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
        ChannelFuture bind = bootstrap.bind(address).awaitUninterruptibly();
        if (!bind.isSuccess()) {
            loop.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            Throwable cause = bind.cause();
            throw new UncheckedIOException("cannot bind http endpoint to " + address.getHostString() + ":"
                    + address.getPort() + ": " + cause.getMessage(),
                    cause instanceof IOException io ? io : new IOException(cause));
        }
        this.server = bind.channel();
    }

    int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
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
