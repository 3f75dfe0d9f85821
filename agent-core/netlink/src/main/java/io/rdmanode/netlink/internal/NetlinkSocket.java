// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.posix.Errno;
import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * An AF_NETLINK socket through libc (the posix bundle): {@code socket(AF_NETLINK, SOCK_RAW|SOCK_CLOEXEC, protocol)},
 * bound to multicast {@code groups}, with a receive timeout so a reader thread can notice {@link #close()}
 * (closing an fd does not wake a thread blocked in recv(2) on Linux). Integers on the wire are host order.
 */
public final class NetlinkSocket implements NetlinkChannel {

    public static final int AF_NETLINK = 16;
    public static final int NETLINK_ROUTE = 0;
    public static final int NETLINK_KOBJECT_UEVENT = 15;
    public static final int NETLINK_RDMA = 20;

    private final Posix c;
    private final int fd;
    private volatile boolean closed;

    private NetlinkSocket(Posix c, int fd) {
        this.c = c;
        this.fd = fd;
    }

    public static NetlinkSocket open(int protocol, int groups, int receiveTimeoutMs) {
        Posix c = Posix.libc();
        int fd;
        try {
            fd = c.socket(AF_NETLINK, Posix.SOCK_RAW | Posix.SOCK_CLOEXEC, protocol);
        } catch (PosixException e) {
            throw NativeNetnsFiles.fail("socket(AF_NETLINK, " + protocol + ")", e);
        }
        NetlinkSocket s = new NetlinkSocket(c, fd);
        ByteBuffer addr = le(12).putShort((short) AF_NETLINK).putShort((short) 0).putInt(0).putInt(groups);
        String call = "bind(netlink " + protocol + ", groups " + groups + ")";
        try {
            c.bind(fd, addr.array());
            call = "setsockopt(netlink " + protocol + ", SO_RCVBUF/SO_RCVTIMEO)";
            c.setsockopt(fd, Posix.SOL_SOCKET, Posix.SO_RCVBUF, le(4).putInt(1 << 20).array());
            ByteBuffer tv = le(16).putLong(receiveTimeoutMs / 1000).putLong((receiveTimeoutMs % 1000) * 1000L);
            c.setsockopt(fd, Posix.SOL_SOCKET, Posix.SO_RCVTIMEO, tv.array());
        } catch (PosixException e) {
            s.close();
            throw NativeNetnsFiles.fail(call, e);
        }
        return s;
    }

    @Override
    public int receive(byte[] buf) {
        try {
            return (int) c.recv(fd, buf, buf.length, 0);
        } catch (PosixException e) {
            if (e.errno() == Errno.EAGAIN || e.errno() == Errno.EINTR) {
                return 0;
            }
            throw NativeNetnsFiles.fail("recv(netlink)", e);
        }
    }

    @Override
    public void send(byte[] message) {
        try {
            c.send(fd, message, message.length, 0);
        } catch (PosixException e) {
            throw NativeNetnsFiles.fail("send(netlink)", e);
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
