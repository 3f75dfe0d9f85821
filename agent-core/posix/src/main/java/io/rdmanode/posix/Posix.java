// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.posix;

import io.rdmanode.posix.internal.JnrPosix;
import java.nio.ByteBuffer;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The libc calls the agent makes, each bound once (issue 19), in plain Java: descriptors are ints, memory is a
 * {@code byte[]} or a {@link ByteBuffer}, results are records, and a failed call (-1 and errno) throws a
 * {@link PosixException} naming the call and the errno. Every method is named after the call it wraps and
 * documents the C signature; the constants are Linux's (x86-64 and aarch64 share them).
 *
 * <p>Thread-safe; errno is read on the calling thread right after the call. Calls that change the calling OS
 * thread ({@link #setns}, {@link #unshare}) affect only that thread, so they belong on a platform thread of
 * their own, never on a pooled or virtual one.
 */
@ProviderType
public interface Posix {

    int AF_UNIX = 1;
    int AF_NETLINK = 16;
    int SOCK_STREAM = 1;
    int SOCK_RAW = 3;
    int SOCK_NONBLOCK = 0x800;
    int SOCK_CLOEXEC = 0x80000;
    int SOL_SOCKET = 1;
    int SO_RCVBUF = 8;
    int SO_PEERCRED = 17;
    int SO_PEERPIDFD = 77;
    int SO_RCVTIMEO = 20;
    int SHUT_RDWR = 2;
    int MSG_PEEK = 0x2;
    int MSG_DONTWAIT = 0x40;
    int MSG_NOSIGNAL = 0x4000;
    int O_RDONLY = 0;
    int O_NONBLOCK = 0x800;
    int O_CLOEXEC = 0x80000;
    int F_GETFL = 3;
    int F_SETFL = 4;
    int F_DUPFD_CLOEXEC = 1030;
    int LOCK_EX = 2;
    int LOCK_NB = 4;
    int LOCK_UN = 8;
    short POLLIN = 0x1;
    short POLLHUP = 0x10;
    int EFD_SEMAPHORE = 1;
    int EFD_NONBLOCK = 0x800;
    int EFD_CLOEXEC = 0x80000;
    int CLONE_NEWNS = 0x00020000;
    int CLONE_NEWNET = 0x40000000;
    long MS_RDONLY = 1;
    long MS_NOSUID = 2;
    long MS_NODEV = 4;
    long MS_NOEXEC = 8;
    long MS_REC = 0x4000;
    long MS_SLAVE = 1 << 19;
    int PR_SET_TIMERSLACK = 29;
    int PR_GET_TIMERSLACK = 30;
    int SIGKILL = 9;

    /**
     * The process's libc, bound through jnr-ffi on the first call (about 100 ms: jnr generates the stubs). An
     * {@link UnsatisfiedLinkError} or a {@link PosixException} if it cannot be bound (no jffi stub for this CPU).
     */
    static Posix libc() {
        return JnrPosix.instance();
    }

    /** {@code int socket(int domain, int type, int protocol)}: the new descriptor. */
    int socket(int domain, int type, int protocol);

    /** {@code int bind(int fd, const struct sockaddr *, socklen_t)}: {@code sockaddr} is the whole address. */
    void bind(int fd, byte[] sockaddr);

    /** {@code int listen(int fd, int backlog)}. */
    void listen(int fd, int backlog);

    /**
     * {@code int connect(int fd, const struct sockaddr *, socklen_t)}: {@code sockaddr} is the whole address.
     *
     * @since 1.1
     */
    void connect(int fd, byte[] sockaddr);

    /**
     * {@code int flock(int fd, int operation)} ({@link #LOCK_EX}, {@link #LOCK_NB}, {@link #LOCK_UN}): a lock on
     * the open file description, so two opens of one file conflict even within one process.
     *
     * @since 1.1
     */
    void flock(int fd, int operation);

    /** {@code int accept4(int fd, NULL, NULL, int flags)}: the connection's descriptor. */
    int accept4(int fd, int flags);

    /** {@code int shutdown(int fd, int how)}. */
    void shutdown(int fd, int how);

    /** {@code int setsockopt(int fd, int level, int optname, const void *optval, socklen_t)}. */
    void setsockopt(int fd, int level, int optname, byte[] value);

    /** {@code getsockopt(fd, SOL_SOCKET, SO_PEERCRED, struct ucred *, ...)}. */
    PeerCredentials peerCredentials(int fd);

    /**
     * {@code getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, int *, ...)} (Linux 6.5): a pidfd (close-on-exec) of the
     * process that connected, whatever PID namespace it is in; ENOPROTOOPT on older kernels.
     *
     * @since 1.4
     */
    int peerPidfd(int fd);

    /** {@code ssize_t send(int fd, const void *buf, size_t len, int flags)}: the first {@code len} bytes of buf. */
    long send(int fd, byte[] buf, int len, int flags);

    /** {@code ssize_t recv(int fd, void *buf, size_t len, int flags)}: bytes received, 0 at end of stream. */
    long recv(int fd, byte[] buf, int len, int flags);

    /**
     * {@code ssize_t sendmsg(int fd, const struct msghdr *, int flags)} with one buffer: sends the bytes between
     * {@code data}'s position and limit (advancing the position by what was sent) and, when {@code passFd >= 0},
     * that descriptor as {@code SCM_RIGHTS}. Returns the bytes sent.
     */
    long sendmsg(int fd, ByteBuffer data, int passFd, int flags);

    /**
     * {@code ssize_t recvmsg(int fd, struct msghdr *, int flags)} with one buffer and room for descriptors: reads
     * into {@code into} between its position and limit (advancing the position) and takes every descriptor that
     * came as {@code SCM_RIGHTS} out of the kernel's queue, to the caller.
     */
    Received recvmsg(int fd, ByteBuffer into, int flags);

    /** {@code ssize_t read(int fd, void *buf, size_t len)}: bytes read, 0 at end of file. */
    long read(int fd, byte[] buf, int len);

    /** {@code ssize_t write(int fd, const void *buf, size_t len)}: bytes written. */
    long write(int fd, byte[] buf, int len);

    /** {@code int open(const char *path, int flags)}: the new descriptor. */
    int open(String path, int flags);

    /**
     * {@code int openat(int dirfd, const char *path, int flags)}: the new descriptor. {@code path} is the C string
     * itself, NUL-terminated, so that a caller opening the same names again and again (counter files, relative to
     * their directory) encodes each once.
     *
     * @since 1.3
     */
    int openat(int dirfd, byte[] path, int flags);

    /** {@code int close(int fd)}. */
    void close(int fd);

    /** {@code int fcntl(int fd, int cmd, int arg)}, the integer form ({@link #F_GETFL}, {@link #F_SETFL}). */
    int fcntl(int fd, int cmd, int arg);

    /**
     * {@code int dup3(int oldfd, int newfd, int flags)}: makes {@code newfd} refer to what {@code oldfd} does,
     * closing what {@code newfd} referred to, atomically ({@link #O_CLOEXEC} the one flag).
     *
     * @since 1.1
     */
    void dup3(int oldfd, int newfd, int flags);

    /** {@code int pipe2(int fds[2], int flags)}. */
    Pipe pipe2(int flags);

    /** {@code int eventfd(unsigned int initval, int flags)}: the new descriptor. */
    int eventfd(int initval, int flags);

    /**
     * {@code int poll(struct pollfd *fds, nfds_t n, int timeout)}, every descriptor asked for the same
     * {@code events}: the {@code revents} of each, in order, all 0 when the timeout passed.
     */
    short[] poll(int[] fds, short events, int timeoutMs);

    /** {@code int setns(int fd, int nstype)}, for the calling thread. */
    void setns(int fd, int nstype);

    /** {@code int unshare(int flags)}, for the calling thread. */
    void unshare(int flags);

    /** {@code int mount(const char *source, const char *target, const char *fstype, unsigned long flags, NULL)}. */
    void mount(String source, String target, String fstype, long flags);

    /** {@code pidfd_open(pid_t pid, unsigned int flags)} (Linux 5.3, through syscall(2)): the new descriptor. */
    int pidfdOpen(int pid, int flags);

    /**
     * {@code pidfd_send_signal(int pidfd, int sig, NULL, 0)} (Linux 5.1, through syscall(2)): a signal to exactly
     * the process the descriptor was opened for, never to one that reused its pid since.
     *
     * @since 1.4
     */
    void pidfdSendSignal(int pidfd, int signal);

    /** {@code int prctl(int option, unsigned long arg2, 0, 0, 0)}: its non-negative result. */
    long prctl(int option, long arg2);

    /** {@code char *strerror(int errnum)}. */
    String strerror(int errno);
}
