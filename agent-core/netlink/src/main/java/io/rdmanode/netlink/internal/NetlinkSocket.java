// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import io.rdmanode.netlink.NetlinkException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * An AF_NETLINK socket through libc (jnr-ffi): {@code socket(AF_NETLINK, SOCK_RAW|SOCK_CLOEXEC, protocol)},
 * bound to multicast {@code groups}, with a receive timeout so a reader thread can notice {@link #close()}
 * (closing an fd does not wake a thread blocked in recv(2) on Linux). Integers on the wire are host order.
 */
public final class NetlinkSocket implements NetlinkChannel {

    public static final int AF_NETLINK = 16;
    public static final int NETLINK_ROUTE = 0;
    public static final int NETLINK_KOBJECT_UEVENT = 15;
    public static final int NETLINK_RDMA = 20;
    private static final int SOCK_RAW = 3;
    private static final int SOCK_CLOEXEC = 02000000;
    private static final int SOL_SOCKET = 1;
    private static final int SO_RCVBUF = 8;
    private static final int SO_RCVTIMEO = 20;
    private static final int EAGAIN = 11;
    private static final int EINTR = 4;

    private final LibC c;
    private final int fd;
    private volatile boolean closed;

    private NetlinkSocket(LibC c, int fd) {
        this.c = c;
        this.fd = fd;
    }

    public static NetlinkSocket open(int protocol, int groups, int receiveTimeoutMs) {
        LibC c = Native.libc();
        int fd = c.socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol);
        if (fd < 0) {
            throw Native.fail("socket(AF_NETLINK, " + protocol + ")");
        }
        NetlinkSocket s = new NetlinkSocket(c, fd);
        ByteBuffer addr = le(12).putShort((short) AF_NETLINK).putShort((short) 0).putInt(0).putInt(groups);
        if (c.bind(fd, addr.array(), 12) < 0) {
            NetlinkException why = Native.fail("bind(netlink " + protocol + ", groups " + groups + ")");
            s.close();
            throw why;
        }
        c.setsockopt(fd, SOL_SOCKET, SO_RCVBUF, le(4).putInt(1 << 20).array(), 4);
        ByteBuffer tv = le(16).putLong(receiveTimeoutMs / 1000).putLong((receiveTimeoutMs % 1000) * 1000L);
        c.setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, tv.array(), 16);
        return s;
    }

    @Override
    public int receive(byte[] buf) {
        long n = c.recv(fd, buf, buf.length, 0);
        if (n < 0) {
            int errno = Native.errno();
            if (errno == EAGAIN || errno == EINTR) {
                return 0;
            }
            throw new NetlinkException("recv(netlink): " + c.strerror(errno), errno);
        }
        return (int) n;
    }

    @Override
    public void send(byte[] message) {
        if (c.send(fd, message, message.length, 0) < 0) {
            throw Native.fail("send(netlink)");
        }
    }

    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            c.close(fd);
        }
    }

    static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.nativeOrder());
    }
}
