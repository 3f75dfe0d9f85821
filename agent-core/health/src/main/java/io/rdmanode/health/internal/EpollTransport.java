// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.netty.channel.Channel;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import java.util.OptionalInt;

/**
 * Netty's epoll transport for the endpoint, where it loads (Linux, with the native fragment): unlike NIO it can
 * wrap a listening descriptor a predecessor handed over ({@code new EpollServerSocketChannel(fd)}) and show its
 * own to a successor (issue 27). Kept in a class of its own so that, without the epoll bundle (the import is
 * optional), only {@link #available()} is ever called and answers false.
 */
final class EpollTransport {

    private EpollTransport() {
    }

    static boolean available() {
        try {
            return Epoll.isAvailable();
        } catch (LinkageError missing) {
            return false;
        }
    }

    static IoHandlerFactory ioHandler() {
        return EpollIoHandler.newFactory();
    }

    static Class<? extends ServerChannel> serverChannel() {
        return EpollServerSocketChannel.class;
    }

    static ServerChannel adopt(int fd) {
        return new EpollServerSocketChannel(fd);
    }

    /** Closes a descriptor this process owns (one handed back that it does not accept on). */
    static void close(int fd) {
        try {
            new io.netty.channel.unix.FileDescriptor(fd).close();
        } catch (java.io.IOException | LinkageError e) {
            // nothing more to do with it
        }
    }

    static OptionalInt fd(Channel server) {
        return server instanceof EpollServerSocketChannel epoll ? OptionalInt.of(epoll.fd().intValue())
                : OptionalInt.empty();
    }
}
