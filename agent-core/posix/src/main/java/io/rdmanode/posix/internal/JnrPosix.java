// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.posix.internal;

import com.kenai.jffi.MemoryIO;
import io.rdmanode.posix.PeerCredentials;
import io.rdmanode.posix.Pipe;
import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;
import io.rdmanode.posix.Received;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;

/** {@link Posix} over the jnr-ffi binding {@link LibC}: -1 and errno become a {@link PosixException}. */
public final class JnrPosix implements Posix {

    /** pidfd_open(2): the same number on every architecture since Linux 5.3. */
    private static final long SYS_PIDFD_OPEN = 434;
    /** pidfd_send_signal(2): likewise, since Linux 5.1. */
    private static final long SYS_PIDFD_SEND_SIGNAL = 424;
    private static volatile JnrPosix instance;

    private final LibC c;
    private final Runtime runtime;

    private JnrPosix(LibC c) {
        this.c = c;
        this.runtime = Runtime.getRuntime(c);
    }

    /** libc, bound on first use; this bundle's class loader finds the embedded jnr-ffi. */
    public static JnrPosix instance() {
        JnrPosix p = instance;
        if (p == null) {
            synchronized (JnrPosix.class) {
                p = instance;
                if (p == null) {
                    JffiStub.prepare();
                    p = new JnrPosix(LibraryLoader.create(LibC.class).failImmediately().load("c"));
                    instance = p;
                }
            }
        }
        return p;
    }

    private PosixException fail(String call) {
        int errno = runtime.getLastError();
        return new PosixException(call, errno, c.strerror(errno));
    }

    private int check(int result, String call) {
        if (result < 0) {
            throw fail(call);
        }
        return result;
    }

    private long check(long result, String call) {
        if (result < 0) {
            throw fail(call);
        }
        return result;
    }

    @Override
    public int socket(int domain, int type, int protocol) {
        return check(c.socket(domain, type, protocol), "socket(" + domain + ", " + type + ", " + protocol + ")");
    }

    @Override
    public void bind(int fd, byte[] sockaddr) {
        check(c.bind(fd, sockaddr, sockaddr.length), "bind(fd " + fd + ")");
    }

    @Override
    public void listen(int fd, int backlog) {
        check(c.listen(fd, backlog), "listen(fd " + fd + ")");
    }

    @Override
    public int accept4(int fd, int flags) {
        return check(c.accept4(fd, null, null, flags), "accept4(fd " + fd + ")");
    }

    @Override
    public void shutdown(int fd, int how) {
        check(c.shutdown(fd, how), "shutdown(fd " + fd + ")");
    }

    @Override
    public void setsockopt(int fd, int level, int optname, byte[] value) {
        check(c.setsockopt(fd, level, optname, value, value.length),
                "setsockopt(fd " + fd + ", " + level + ", " + optname + ")");
    }

    @Override
    public PeerCredentials peerCredentials(int fd) {
        byte[] cred = new byte[12];
        int[] len = {cred.length};
        check(c.getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cred, len), "getsockopt(fd " + fd + ", SO_PEERCRED)");
        ByteBuffer b = ByteBuffer.wrap(cred).order(ByteOrder.nativeOrder());
        return new PeerCredentials(b.getInt(0), b.getInt(4), b.getInt(8));
    }

    @Override
    public int peerPidfd(int fd) {
        byte[] pidfd = new byte[4];
        int[] len = {pidfd.length};
        check(c.getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, pidfd, len), "getsockopt(fd " + fd + ", SO_PEERPIDFD)");
        return ByteBuffer.wrap(pidfd).order(ByteOrder.nativeOrder()).getInt(0);
    }

    @Override
    public long send(int fd, byte[] buf, int len, int flags) {
        return check(c.send(fd, buf, checkLength(buf, len), flags), "send(fd " + fd + ")");
    }

    @Override
    public long recv(int fd, byte[] buf, int len, int flags) {
        return check(c.recv(fd, buf, checkLength(buf, len), flags), "recv(fd " + fd + ")");
    }

    @Override
    public long sendmsg(int fd, ByteBuffer data, int passFd, int flags) {
        Msghdr m = new Msghdr(runtime, data);
        if (!m.inPlace) {
            m.data.put(0, bytes(data.duplicate()), 0, data.remaining());
        }
        if (passFd >= 0) {
            m.passFd(passFd);
        }
        long sent = check(c.sendmsg(fd, m.msg, flags), "sendmsg(fd " + fd + ")");
        data.position(data.position() + (int) sent);
        return sent;
    }

    @Override
    public Received recvmsg(int fd, ByteBuffer into, int flags) {
        if (into.isReadOnly()) {
            throw new ReadOnlyBufferException();
        }
        Msghdr m = new Msghdr(runtime, into);
        m.expectFds();
        long got = check(c.recvmsg(fd, m.msg, flags), "recvmsg(fd " + fd + ")");
        if (m.inPlace) {
            into.position(into.position() + (int) got);
        } else {
            byte[] b = new byte[(int) got];
            m.data.get(0, b, 0, b.length);
            into.put(b);
        }
        return new Received(got, m.receivedFds());
    }

    @Override
    public long read(int fd, byte[] buf, int len) {
        // The call's name only on failure: read, openat and close run per counter file of every scrape.
        long n = c.read(fd, buf, checkLength(buf, len));
        if (n < 0) {
            throw fail("read(fd " + fd + ")");
        }
        return n;
    }

    @Override
    public long write(int fd, byte[] buf, int len) {
        return check(c.write(fd, buf, checkLength(buf, len)), "write(fd " + fd + ")");
    }

    @Override
    public int open(String path, int flags) {
        return check(c.open(path, flags), "open " + path);
    }

    @Override
    public int openat(int dirfd, byte[] path, int flags) {
        if (path.length == 0 || path[path.length - 1] != 0) {
            throw new IllegalArgumentException("openat: the path must end with a NUL byte");
        }
        int fd = c.openat(dirfd, path, flags);
        if (fd < 0) {
            throw fail("openat(fd " + dirfd + ", "
                    + new String(path, 0, path.length - 1, StandardCharsets.UTF_8) + ")");
        }
        return fd;
    }

    @Override
    public void close(int fd) {
        if (c.close(fd) != 0) {
            throw fail("close(fd " + fd + ")");
        }
    }

    @Override
    public int fcntl(int fd, int cmd, int arg) {
        return check(c.fcntl(fd, cmd, arg), "fcntl(fd " + fd + ", " + cmd + ")");
    }

    @Override
    public void connect(int fd, byte[] sockaddr) {
        check(c.connect(fd, sockaddr, sockaddr.length), "connect(fd " + fd + ")");
    }

    @Override
    public void flock(int fd, int operation) {
        check(c.flock(fd, operation), "flock(fd " + fd + ", " + operation + ")");
    }

    @Override
    public void dup3(int oldfd, int newfd, int flags) {
        check(c.dup3(oldfd, newfd, flags), "dup3(fd " + oldfd + ", fd " + newfd + ")");
    }

    @Override
    public Pipe pipe2(int flags) {
        int[] fds = new int[2];
        check(c.pipe2(fds, flags), "pipe2");
        return new Pipe(fds[0], fds[1]);
    }

    @Override
    public int eventfd(int initval, int flags) {
        return check(c.eventfd(initval, flags), "eventfd");
    }

    @Override
    public short[] poll(int[] fds, short events, int timeoutMs) {
        ByteBuffer p = ByteBuffer.allocate(8 * fds.length).order(ByteOrder.nativeOrder());
        for (int i = 0; i < fds.length; i++) {
            p.putInt(8 * i, fds[i]).putShort(8 * i + 4, events);
        }
        check(c.poll(p.array(), fds.length, timeoutMs), "poll(" + fds.length + " fds)");
        short[] revents = new short[fds.length];
        for (int i = 0; i < fds.length; i++) {
            revents[i] = p.getShort(8 * i + 6);
        }
        return revents;
    }

    @Override
    public void setns(int fd, int nstype) {
        check(c.setns(fd, nstype), "setns(fd " + fd + ", " + nstype + ")");
    }

    @Override
    public void unshare(int flags) {
        check(c.unshare(flags), "unshare(" + flags + ")");
    }

    @Override
    public void mount(String source, String target, String fstype, long flags) {
        check(c.mount(source, target, fstype, flags, null), "mount " + source + " on " + target);
    }

    @Override
    public int pidfdOpen(int pid, int flags) {
        return (int) check(c.syscall(SYS_PIDFD_OPEN, pid, flags), "pidfd_open(" + pid + ")");
    }

    @Override
    public void pidfdSendSignal(int pidfd, int signal) {
        check(c.syscall(SYS_PIDFD_SEND_SIGNAL, pidfd, signal, 0, 0), "pidfd_send_signal(" + signal + ")");
    }

    @Override
    public long prctl(int option, long arg2) {
        return check(c.prctl(option, arg2, 0, 0, 0), "prctl(" + option + ")");
    }

    @Override
    public String strerror(int errno) {
        return c.strerror(errno);
    }

    private static long checkLength(byte[] buf, int len) {
        if (len < 0 || len > buf.length) {
            throw new IndexOutOfBoundsException("length " + len + " of a " + buf.length + "-byte buffer");
        }
        return len;
    }

    private static byte[] bytes(ByteBuffer b) {
        if (b.hasArray() && b.arrayOffset() == 0 && b.position() == 0) {
            return b.array();
        }
        byte[] copy = new byte[b.remaining()];
        b.get(copy);
        return copy;
    }

    /**
     * A {@code struct msghdr} (LP64: 56 bytes) with one {@code struct iovec} over the buffer's remaining bytes
     * (the buffer itself when direct, a native copy otherwise) and a control buffer with room for
     * {@link #MAX_FDS} descriptors; native memory for one call, freed by the garbage collector.
     */
    private static final class Msghdr {
        private static final int MSGHDR = 56;
        private static final int CMSG_HEADER = 16;
        private static final int MAX_FDS = 16;
        private static final int CONTROL = CMSG_HEADER + 4 * MAX_FDS;

        final Pointer msg;
        final Pointer data;
        /** Whether {@link #data} is the buffer's own memory (direct) rather than a native copy. */
        final boolean inPlace;
        private final Pointer iov;
        private final Pointer control;

        Msghdr(Runtime runtime, ByteBuffer buffer) {
            int length = buffer.remaining();
            msg = Memory.allocateDirect(runtime, MSGHDR + 16 + CONTROL, true);
            iov = msg.slice(MSGHDR, 16);
            control = msg.slice(MSGHDR + 16, CONTROL);
            long base = buffer.isDirect() ? MemoryIO.getInstance().getDirectBufferAddress(buffer) : 0;
            inPlace = base != 0;
            data = inPlace ? Pointer.wrap(runtime, base + buffer.position(), length)
                    : Memory.allocateDirect(runtime, Math.max(length, 1), false);
            iov.putAddress(0, data.address());
            iov.putLong(8, length);
            msg.putAddress(16, iov.address());     // msg_iov
            msg.putLong(24, 1);                    // msg_iovlen
        }

        void passFd(int fd) {
            control.putLong(0, CMSG_HEADER + 4);   // cmsg_len = CMSG_LEN(sizeof(int))
            control.putInt(8, SOL_SOCKET);
            control.putInt(12, 1);                 // SCM_RIGHTS
            control.putInt(16, fd);
            msg.putAddress(32, control.address()); // msg_control
            msg.putLong(40, CMSG_HEADER + 8);      // msg_controllen = CMSG_SPACE(sizeof(int))
        }

        void expectFds() {
            msg.putAddress(32, control.address());
            msg.putLong(40, CONTROL);
        }

        /** Every SCM_RIGHTS descriptor of the control messages the kernel wrote. */
        int[] receivedFds() {
            long controllen = msg.getLong(40);
            int[] fds = new int[0];
            long at = 0;
            while (at + CMSG_HEADER <= controllen) {
                long len = control.getLong(at);
                if (len < CMSG_HEADER) {
                    break;
                }
                if (control.getInt(at + 8) == SOL_SOCKET && control.getInt(at + 12) == 1) {
                    for (long p = at + CMSG_HEADER; p + 4 <= at + len; p += 4) {
                        fds = Arrays.copyOf(fds, fds.length + 1);
                        fds[fds.length - 1] = control.getInt(p);
                    }
                }
                at += (len + 7) & ~7L;
            }
            return fds;
        }
    }
}
