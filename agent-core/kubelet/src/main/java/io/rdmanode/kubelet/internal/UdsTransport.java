// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.NettyServerBuilder;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * gRPC over Unix domain sockets with Netty epoll (java-stack.md §3): one event loop group shared by every
 * server and client of the host. Explicit transports, never {@code ServerBuilder.forPort} or ServiceLoader.
 */
public final class UdsTransport implements AutoCloseable {

    private final EventLoopGroup group;
    private final Executor executor;
    /** Tests only: runs just before a dial, to make a kubelet restart land at the worst moment. */
    volatile Consumer<Path> beforeDial = socket -> { };

    /**
     * @param threads  event loop threads
     * @param executor runs RPC handlers (not the event loop: a plugin may touch files in Allocate)
     */
    public UdsTransport(int threads, String threadPrefix, Executor executor) {
        Epoll.ensureAvailability();
        this.group = new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(threadPrefix, true),
                EpollIoHandler.newFactory());
        this.executor = executor;
    }

    public Server serve(Path socket, BindableService... services) throws IOException {
        NettyServerBuilder builder = builder(socket);
        for (BindableService service : services) {
            builder.addService(service);
        }
        return builder.build().start();
    }

    /**
     * A server that reads at most {@code maxInboundBytes} of a message (grpc-java answers a longer one
     * {@code RESOURCE_EXHAUSTED} from its length prefix, before buffering it) and lets one connection open at most
     * {@code maxCallsPerConnection} streams at once (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS).
     */
    public Server serve(Path socket, int maxInboundBytes, int maxCallsPerConnection,
                        ServerServiceDefinition... services) throws IOException {
        NettyServerBuilder builder = builder(socket).maxInboundMessageSize(maxInboundBytes)
                .maxConcurrentCallsPerConnection(maxCallsPerConnection);
        for (ServerServiceDefinition service : services) {
            builder.addService(service);
        }
        return builder.build().start();
    }

    private NettyServerBuilder builder(Path socket) {
        return NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollServerDomainSocketChannel.class)
                .bossEventLoopGroup(group).workerEventLoopGroup(group).executor(executor)
                .withChildOption(ChannelOption.SO_KEEPALIVE, null);     // else a WARN per accepted connection
    }

    public ManagedChannel dial(Path socket) {
        beforeDial.accept(socket);
        // grpc-java sends the socket path as :authority over UDS, which strict HTTP/2 servers reject.
        return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                .channelType(EpollDomainSocketChannel.class).eventLoopGroup(group).executor(executor)
                .withOption(ChannelOption.SO_KEEPALIVE, null).overrideAuthority("localhost").usePlaintext().build();
    }

    /** Stops the event loops, waiting at most {@code timeoutMillis}. */
    public void close(long timeoutMillis) {
        group.shutdownGracefully(0, timeoutMillis, TimeUnit.MILLISECONDS).awaitUninterruptibly(timeoutMillis);
    }

    @Override
    public void close() {
        close(5000);
    }
}
