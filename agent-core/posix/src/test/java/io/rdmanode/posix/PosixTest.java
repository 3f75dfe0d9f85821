// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.posix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every call of {@link Posix} against the real kernel: pipes, eventfd, poll, Unix and netlink sockets, namespaces. */
class PosixTest {

    private final Posix posix = Posix.libc();

    @Test
    void pipeCarriesBytesAndPollSeesThem() {
        Pipe pipe = posix.pipe2(Posix.O_CLOEXEC | Posix.O_NONBLOCK);
        try {
            assertThat(posix.poll(new int[] {pipe.readFd()}, Posix.POLLIN, 0)).containsExactly((short) 0);
            assertThat(posix.write(pipe.writeFd(), "hello".getBytes(StandardCharsets.US_ASCII), 5)).isEqualTo(5);
            assertThat(posix.poll(new int[] {pipe.writeFd(), pipe.readFd()}, Posix.POLLIN, 1000))
                    .containsExactly((short) 0, Posix.POLLIN);
            byte[] buf = new byte[16];
            assertThat(posix.read(pipe.readFd(), buf, buf.length)).isEqualTo(5);
            assertThat(new String(buf, 0, 5, StandardCharsets.US_ASCII)).isEqualTo("hello");
            assertThatThrownBy(() -> posix.read(pipe.readFd(), buf, buf.length))
                    .isInstanceOfSatisfying(PosixException.class, e -> {
                        assertThat(e.errno()).isEqualTo(Errno.EAGAIN);
                        assertThat(e.errnoName()).isEqualTo("EAGAIN");
                        assertThat(e).hasMessageStartingWith("read(fd " + pipe.readFd() + "): ")
                                .hasMessageEndingWith("(EAGAIN)");
                    });
        } finally {
            posix.close(pipe.readFd());
            posix.close(pipe.writeFd());
        }
    }

    @Test
    void fcntlSetsAndReadsFlags() {
        Pipe pipe = posix.pipe2(Posix.O_CLOEXEC);
        try {
            int flags = posix.fcntl(pipe.readFd(), Posix.F_GETFL, 0);
            assertThat(flags & Posix.O_NONBLOCK).isZero();
            posix.fcntl(pipe.readFd(), Posix.F_SETFL, flags | Posix.O_NONBLOCK);
            assertThat(posix.fcntl(pipe.readFd(), Posix.F_GETFL, 0) & Posix.O_NONBLOCK).isEqualTo(Posix.O_NONBLOCK);
        } finally {
            posix.close(pipe.readFd());
            posix.close(pipe.writeFd());
        }
    }

    @Test
    void flockExcludesASecondOpenOfTheSameFileEvenInOneProcess(@TempDir Path dir) throws Exception {
        Path file = Files.createFile(dir.resolve("state.lock"));
        int first = posix.open(file.toString(), Posix.O_RDONLY | Posix.O_CLOEXEC);
        int second = posix.open(file.toString(), Posix.O_RDONLY | Posix.O_CLOEXEC);
        try {
            posix.flock(first, Posix.LOCK_EX | Posix.LOCK_NB);
            assertThatThrownBy(() -> posix.flock(second, Posix.LOCK_EX | Posix.LOCK_NB))
                    .isInstanceOfSatisfying(PosixException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EAGAIN));
            posix.close(first);
            posix.flock(second, Posix.LOCK_EX | Posix.LOCK_NB);
        } finally {
            posix.close(second);
        }
    }

    @Test
    void dup3PutsOneDescriptorUnderAnothersNumber() {
        Pipe a = posix.pipe2(Posix.O_CLOEXEC | Posix.O_NONBLOCK);
        Pipe b = posix.pipe2(Posix.O_CLOEXEC | Posix.O_NONBLOCK);
        try {
            posix.dup3(a.writeFd(), b.writeFd(), Posix.O_CLOEXEC); // b's write end now writes into a
            posix.write(b.writeFd(), new byte[] {42}, 1);
            byte[] got = new byte[1];
            assertThat(posix.read(a.readFd(), got, 1)).isEqualTo(1);
            assertThat(got[0]).isEqualTo((byte) 42);
            int copy = posix.fcntl(a.readFd(), Posix.F_DUPFD_CLOEXEC, 0);
            assertThat(copy).isNotIn(a.readFd(), a.writeFd(), b.readFd(), b.writeFd());
            posix.close(copy);
        } finally {
            posix.close(a.readFd());
            posix.close(a.writeFd());
            posix.close(b.readFd());
            posix.close(b.writeFd());
        }
    }

    @Test
    void eventfdCountsAsASemaphore() {
        int fd = posix.eventfd(0, Posix.EFD_CLOEXEC | Posix.EFD_NONBLOCK | Posix.EFD_SEMAPHORE);
        try {
            byte[] two = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder()).putLong(0, 2).array();
            posix.write(fd, two, 8);
            byte[] out = new byte[8];
            assertThat(posix.read(fd, out, 8)).isEqualTo(8);
            assertThat(ByteBuffer.wrap(out).order(ByteOrder.nativeOrder()).getLong()).isEqualTo(1);
            posix.read(fd, out, 8);
            assertThat(posix.poll(new int[] {fd}, Posix.POLLIN, 0)).containsExactly((short) 0);
        } finally {
            posix.close(fd);
        }
    }

    @Test
    void openatOpensRelativeToADirectoryWithANulTerminatedName(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("port_rcv_data"), "12345\n");
        int dirFd = posix.open(dir.toString(), Posix.O_RDONLY | Posix.O_CLOEXEC);
        try {
            int fd = posix.openat(dirFd, "port_rcv_data\0".getBytes(StandardCharsets.US_ASCII), Posix.O_RDONLY);
            byte[] buf = new byte[64];
            long n;
            try {
                n = posix.read(fd, buf, buf.length);
            } finally {
                posix.close(fd);
            }
            assertThat(new String(buf, 0, (int) n, StandardCharsets.US_ASCII)).isEqualTo("12345\n");
            assertThatThrownBy(() -> posix.openat(dirFd, "gone\0".getBytes(StandardCharsets.US_ASCII), 0))
                    .isInstanceOf(PosixException.class)
                    .hasMessage("openat(fd " + dirFd + ", gone): No such file or directory (ENOENT)");
            assertThatThrownBy(() -> posix.openat(dirFd, "port_rcv_data".getBytes(StandardCharsets.US_ASCII), 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NUL");
        } finally {
            posix.close(dirFd);
        }
    }

    @Test
    void failuresNameTheCallAndTheErrno() {
        assertThatThrownBy(() -> posix.open("/nonexistent/posix-test", Posix.O_RDONLY))
                .isInstanceOf(PosixException.class)
                .hasMessage("open /nonexistent/posix-test: No such file or directory (ENOENT)")
                .extracting(e -> ((PosixException) e).errno()).isEqualTo(Errno.ENOENT);
        assertThatThrownBy(() -> posix.close(-1)).isInstanceOf(PosixException.class)
                .hasMessage("close(fd -1): Bad file descriptor (EBADF)");
        assertThat(posix.strerror(Errno.EOPNOTSUPP)).isEqualTo("Operation not supported");
        assertThat(Errno.name(Errno.EOPNOTSUPP)).isEqualTo("EOPNOTSUPP");
        assertThat(Errno.name(133)).isEqualTo("EHWPOISON");
        assertThat(Errno.name(41)).isEqualTo("errno 41");
    }

    @Test
    void unixServerAcceptsSeesPeerAndExchangesMessages(@TempDir Path dir) throws Exception {
        Path path = dir.resolve("s.sock");
        int server = posix.socket(Posix.AF_UNIX, Posix.SOCK_STREAM | Posix.SOCK_CLOEXEC, 0);
        try {
            posix.bind(server, sockaddrUn(path));
            posix.listen(server, 4);
            try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
                int conn = posix.accept4(server, Posix.SOCK_CLOEXEC);
                try {
                    assertThat(posix.peerCredentials(conn))
                            .isEqualTo(new PeerCredentials((int) ProcessHandle.current().pid(), 0, 0));
                    client.write(ByteBuffer.wrap("ping".getBytes(StandardCharsets.US_ASCII)));
                    ByteBuffer in = ByteBuffer.allocateDirect(16);
                    Received r = posix.recvmsg(conn, in, 0);
                    assertThat(r.bytes()).isEqualTo(4);
                    assertThat(r.fds()).isEmpty();
                    assertThat(in.position()).isEqualTo(4);
                    assertThat(StandardCharsets.US_ASCII.decode(in.flip()).toString()).isEqualTo("ping");

                    Pipe pipe = posix.pipe2(Posix.O_CLOEXEC);
                    ByteBuffer out = ByteBuffer.wrap("fd".getBytes(StandardCharsets.US_ASCII));
                    assertThat(posix.sendmsg(conn, out, pipe.readFd(), Posix.MSG_NOSIGNAL)).isEqualTo(2);
                    assertThat(out.hasRemaining()).isFalse();
                    posix.close(pipe.readFd());
                    posix.close(pipe.writeFd());
                    ByteBuffer got = ByteBuffer.allocate(2);
                    client.read(got);
                    assertThat(new String(got.array(), StandardCharsets.US_ASCII)).isEqualTo("fd");

                    assertThat(posix.send(conn, new byte[] {7, 8, 9}, 2, Posix.MSG_NOSIGNAL)).isEqualTo(2);
                    ByteBuffer two = ByteBuffer.allocate(2);
                    client.read(two);
                    assertThat(two.array()).containsExactly(7, 8);

                    posix.shutdown(conn, Posix.SHUT_RDWR);
                    assertThat(posix.recvmsg(conn, ByteBuffer.allocate(4), 0).bytes()).isZero();
                } finally {
                    posix.close(conn);
                }
            }
        } finally {
            posix.close(server);
        }
    }

    @Test
    void recvmsgTakesDescriptorsSentWithTheBytes(@TempDir Path dir) throws Exception {
        Path path = dir.resolve("fds.sock");
        int server = posix.socket(Posix.AF_UNIX, Posix.SOCK_STREAM | Posix.SOCK_CLOEXEC, 0);
        try {
            posix.bind(server, sockaddrUn(path));
            posix.listen(server, 4);
            Set<String> before = sockets();
            try (SocketChannel client = SocketChannel.open(UnixDomainSocketAddress.of(path))) {
                // The JDK's client end is a descriptor of this process too: sendmsg on it sends as a client would.
                Set<String> opened = sockets();
                opened.removeAll(before);
                assertThat(opened).hasSize(1);
                int clientFd = Integer.parseInt(opened.iterator().next());
                int conn = posix.accept4(server, Posix.SOCK_CLOEXEC);
                Pipe pipe = posix.pipe2(Posix.O_CLOEXEC);
                try {
                    posix.sendmsg(clientFd, ByteBuffer.wrap(new byte[] {'f', 'd'}), pipe.writeFd(), 0);
                    ByteBuffer in = ByteBuffer.allocate(8);
                    Received r = posix.recvmsg(conn, in, 0);
                    assertThat(r.bytes()).isEqualTo(2);
                    assertThat(r.fds()).hasSize(1).doesNotContain(pipe.writeFd());
                    // The received descriptor is the pipe's write end: what is written there comes out of the pipe.
                    posix.write(r.fds()[0], new byte[] {42}, 1);
                    posix.close(r.fds()[0]);
                    byte[] one = new byte[1];
                    assertThat(posix.read(pipe.readFd(), one, 1)).isEqualTo(1);
                    assertThat(one[0]).isEqualTo((byte) 42);
                } finally {
                    posix.close(pipe.readFd());
                    posix.close(pipe.writeFd());
                    posix.close(conn);
                }
            }
        } finally {
            posix.close(server);
        }
    }

    /** The descriptor numbers of this process that are sockets. */
    private static Set<String> sockets() throws IOException {
        Set<String> fds = new HashSet<>();
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : dir) {
                try {
                    if (Files.readSymbolicLink(fd).toString().startsWith("socket:")) {
                        fds.add(fd.getFileName().toString());
                    }
                } catch (IOException gone) {
                    // the directory stream's own descriptor, closed by now
                }
            }
        }
        return fds;
    }

    @Test
    void netlinkSocketBindsAndTimesOut() {
        int fd = posix.socket(Posix.AF_NETLINK, Posix.SOCK_RAW | Posix.SOCK_CLOEXEC, 0);
        try {
            posix.bind(fd, ByteBuffer.allocate(12).order(ByteOrder.nativeOrder())
                    .putShort((short) Posix.AF_NETLINK).array());
            posix.setsockopt(fd, Posix.SOL_SOCKET, Posix.SO_RCVTIMEO,
                    ByteBuffer.allocate(16).order(ByteOrder.nativeOrder()).putLong(0).putLong(1000).array());
            assertThatThrownBy(() -> posix.recv(fd, new byte[64], 64, 0)).isInstanceOfSatisfying(
                    PosixException.class, e -> assertThat(e.errno()).isEqualTo(Errno.EAGAIN));
        } finally {
            posix.close(fd);
        }
    }

    @Test
    void pidfdBecomesReadableWhenTheProcessExits() throws Exception {
        Process child = new ProcessBuilder("sleep", "30").start();
        int fd = posix.pidfdOpen((int) child.pid(), 0);
        try {
            assertThat(posix.poll(new int[] {fd}, Posix.POLLIN, 0)).containsExactly((short) 0);
            child.destroy();
            assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(posix.poll(new int[] {fd}, Posix.POLLIN, 5000)[0] & Posix.POLLIN).isEqualTo(Posix.POLLIN);
        } finally {
            posix.close(fd);
        }
        assertThatThrownBy(() -> posix.pidfdOpen(Integer.MAX_VALUE, 0)).isInstanceOfSatisfying(
                PosixException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ESRCH));
    }

    @Test
    void pidfdSendSignalKillsTheProcessEvenWhenItIsStopped() throws Exception {
        Process child = new ProcessBuilder("sleep", "30").start();
        int fd = posix.pidfdOpen((int) child.pid(), 0);
        try {
            assertThat(new ProcessBuilder("sh", "-c", "kill -STOP " + child.pid()).start().waitFor()).isZero();
            posix.pidfdSendSignal(fd, Posix.SIGKILL);
            assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
            assertThat(child.exitValue()).as("killed by signal 9").isEqualTo(128 + Posix.SIGKILL);
            assertThatThrownBy(() -> posix.pidfdSendSignal(fd, Posix.SIGKILL)).isInstanceOfSatisfying(
                    PosixException.class, e -> assertThat(e.errno()).isEqualTo(Errno.ESRCH));
        } finally {
            posix.close(fd);
        }
    }

    @Test
    void peerPidfdNamesTheProcessThatConnected(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path path = dir.resolve("s.sock");
        int listening = posix.socket(Posix.AF_UNIX, Posix.SOCK_STREAM | Posix.SOCK_CLOEXEC, 0);
        try (java.nio.channels.SocketChannel client = java.nio.channels.SocketChannel.open(
                java.net.StandardProtocolFamily.UNIX)) {
            posix.bind(listening, sockaddrUn(path));
            posix.listen(listening, 1);
            client.connect(java.net.UnixDomainSocketAddress.of(path));
            int accepted = posix.accept4(listening, Posix.SOCK_CLOEXEC);
            int pidfd = posix.peerPidfd(accepted);
            try {
                assertThat(java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/fdinfo/" + pidfd)))
                        .contains("Pid:\t" + ProcessHandle.current().pid());
            } finally {
                posix.close(pidfd);
                posix.close(accepted);
            }
        } finally {
            posix.close(listening);
        }
    }

    @Test
    void prctlSetsTheTimerSlackOfTheCallingThread() throws Exception {
        long slack = onOwnThread(() -> {
            posix.prctl(Posix.PR_SET_TIMERSLACK, 1000);
            return posix.prctl(Posix.PR_GET_TIMERSLACK, 0);
        });
        assertThat(slack).isEqualTo(1000);
    }

    @Test
    void setnsAndUnshareAffectOnlyTheCallingThread() throws Exception {
        String before = Files.readSymbolicLink(Path.of("/proc/thread-self/ns/mnt")).toString();
        String inside = onOwnThread(() -> {
            int own = posix.open("/proc/thread-self/ns/net", Posix.O_RDONLY | Posix.O_CLOEXEC);
            try {
                posix.setns(own, Posix.CLONE_NEWNET);
            } finally {
                posix.close(own);
            }
            posix.unshare(Posix.CLONE_NEWNS);
            posix.mount("none", "/", null, Posix.MS_REC | Posix.MS_SLAVE);
            return Files.readSymbolicLink(Path.of("/proc/thread-self/ns/mnt")).toString();
        });
        assertThat(inside).isNotEqualTo(before);
        assertThat(Files.readSymbolicLink(Path.of("/proc/thread-self/ns/mnt")).toString()).isEqualTo(before);
        assertThatThrownBy(() -> posix.setns(-1, Posix.CLONE_NEWNET)).isInstanceOfSatisfying(
                PosixException.class, e -> assertThat(e.errnoName()).isEqualTo("EBADF"));
    }

    /** Runs work on a fresh platform thread, which ends with it: what it changes dies with it. */
    private static <T> T onOwnThread(Callable<T> work) throws Exception {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                result.complete(work.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }, "posix-test");
        t.start();
        t.join();
        return result.get();
    }

    private static byte[] sockaddrUn(Path path) throws IOException {
        byte[] p = path.toString().getBytes(StandardCharsets.UTF_8);
        byte[] addr = new byte[2 + p.length + 1];
        addr[0] = Posix.AF_UNIX;
        System.arraycopy(p, 0, addr, 2, p.length);
        return addr;
    }
}
