// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.netlink;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;

/**
 * An AF_NETLINK socket through libc (jnr-ffi): {@code socket(AF_NETLINK, SOCK_RAW|SOCK_CLOEXEC, protocol)},
 * bound to multicast {@code groups}, with a receive timeout so a reader thread can notice {@link #close()}
 * (closing an fd does not wake a thread blocked in recv(2) on Linux). Integers on the wire are host order.
 */
public final class NetlinkSocket implements AutoCloseable {

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

    private static volatile LibC libc;

    private final LibC c;
    private final Runtime runtime;
    private final int fd;
    private volatile boolean closed;

    private NetlinkSocket(LibC c, int fd) {
        this.c = c;
        this.runtime = Runtime.getRuntime(c);
        this.fd = fd;
    }

    /** Loads libc once; throws {@link NetlinkException} when jnr-ffi cannot (no native stub for this CPU). */
    static LibC libc() {
        LibC l = libc;
        if (l == null) {
            try {
                l = LibraryLoader.create(LibC.class).load("c");
            } catch (RuntimeException | LinkageError e) {
                throw new NetlinkException("cannot load libc through jnr-ffi: " + e);
            }
            libc = l;
        }
        return l;
    }

    public static NetlinkSocket open(int protocol, int groups, int receiveTimeoutMs) {
        LibC c = libc();
        int fd = c.socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, protocol);
        if (fd < 0) {
            throw new NetlinkException("socket(AF_NETLINK, " + protocol + "): " + errno(c));
        }
        NetlinkSocket s = new NetlinkSocket(c, fd);
        ByteBuffer addr = le(12).putShort((short) AF_NETLINK).putShort((short) 0).putInt(0).putInt(groups);
        if (c.bind(fd, addr.array(), 12) < 0) {
            String why = errno(c);
            s.close();
            throw new NetlinkException("bind(netlink " + protocol + ", groups " + groups + "): " + why);
        }
        c.setsockopt(fd, SOL_SOCKET, SO_RCVBUF, le(4).putInt(1 << 20).array(), 4);
        ByteBuffer tv = le(16).putLong(receiveTimeoutMs / 1000).putLong((receiveTimeoutMs % 1000) * 1000L);
        c.setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, tv.array(), 16);
        return s;
    }

    /** Bytes received, 0 on timeout; a NetlinkException on other errors. */
    public int receive(byte[] buf) {
        long n = c.recv(fd, buf, buf.length, 0);
        if (n < 0) {
            int errno = runtime.getLastError();
            if (errno == EAGAIN || errno == EINTR) {
                return 0;
            }
            throw new NetlinkException("recv(netlink): " + c.strerror(errno));
        }
        return (int) n;
    }

    public void send(byte[] message) {
        if (c.send(fd, message, message.length, 0) < 0) {
            throw new NetlinkException("send(netlink): " + errno(c));
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

    private static String errno(LibC c) {
        return c.strerror(Runtime.getRuntime(c).getLastError());
    }
}
