// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.handover.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmanode.agent.Handover;
import io.rdmanode.posix.Posix;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two instances on one state directory, through the real handover socket and real listening sockets. */
class SocketHandoverTest {

    private static final Posix POSIX = Posix.libc();

    @TempDir
    Path stateDir;
    private final List<AutoCloseable> open = new java.util.concurrent.CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    void successorTakesTheListeningDescriptorAndAcceptsWhatWaitsInTheBacklog() throws Exception {
        SocketHandover predecessor = start(Duration.ofSeconds(30));
        Path path = stateDir.resolve("cni.sock");
        TestDoor door = TestDoor.listen(path);
        predecessor.offer(Handover.CNI, path.toString(), door);
        SocketChannel waiting = connect(path); // queued in the backlog: nobody accepts yet

        SocketHandover successor = start(Duration.ofSeconds(30));
        OptionalInt fd = successor.take(Handover.CNI, path.toString());

        assertThat(fd).isPresent();
        assertThat(door.handedOver).hasValue(1);
        assertThat(door.fd()).as("the predecessor closed its own descriptor").isEqualTo(-1);
        waiting.write(ByteBuffer.wrap("queued".getBytes(StandardCharsets.UTF_8)));
        int accepted = POSIX.accept4(fd.getAsInt(), Posix.SOCK_CLOEXEC);
        assertThat(receive(accepted)).isEqualTo("queued");
        SocketChannel later = connect(path);
        later.write(ByteBuffer.wrap("later".getBytes(StandardCharsets.UTF_8)));
        int second = POSIX.accept4(fd.getAsInt(), Posix.SOCK_CLOEXEC);
        assertThat(receive(second)).isEqualTo("later");
        POSIX.close(accepted);
        POSIX.close(second);
        POSIX.close(fd.getAsInt());
    }

    @Test
    void aDoorNotOfferedOrOfferedAtAnotherAddressIsNotTaken() throws Exception {
        SocketHandover predecessor = start(Duration.ofSeconds(30));
        Path path = stateDir.resolve("http.sock");
        TestDoor door = TestDoor.listen(path);
        predecessor.offer(Handover.HTTP, "127.0.0.1:9456", door);

        SocketHandover successor = start(Duration.ofSeconds(30));

        assertThat(successor.take(Handover.HTTP, "127.0.0.1:9457")).isEmpty();
        assertThat(successor.take(Handover.FREEFLOW, "/run/freeflow/router")).isEmpty();
        assertThat(door.handedOver).hasValue(0);
        assertThat(door.fd()).isNotEqualTo(-1);
    }

    @Test
    void aDeadPredecessorsStaleSocketIsIgnored() throws Exception {
        Path socket = stateDir.resolve(Protocol.SOCKET);
        TestDoor dead = TestDoor.listen(socket); // a socket file nobody listens on once closed
        dead.closeOwn();

        SocketHandover first = start(Duration.ofSeconds(30));

        assertThat(first.take(Handover.CNI, "/run/cni.sock")).isEmpty();
        await().atMost(Duration.ofSeconds(5)).until(first::writer);
        assertThat(first.handedOver()).isFalse();
    }

    @Test
    void anInstanceStartingWhileAnotherTakesOverQueuesBehindItAndBecomesItsSuccessor() throws Exception {
        SocketHandover first = start(Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(5)).until(first::writer);
        Path path = stateDir.resolve("router.sock");
        first.offer(Handover.FREEFLOW, path.toString(), TestDoor.listen(path));
        SocketHandover second = start(Duration.ofSeconds(30));          // taking over, the door not served yet
        OptionalInt fd = second.take(Handover.FREEFLOW, path.toString());

        java.util.concurrent.CompletableFuture<SocketHandover> third = startElsewhere();
        Thread.sleep(300);
        assertThat(third).as("waits while the second takes over").isNotDone();

        second.offer(Handover.FREEFLOW, path.toString(), TestDoor.adopt(fd.getAsInt()));
        SocketHandover t = third.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(first.handedOver()).isTrue();
        assertThat(second.writer()).as("the writer until the third serves").isTrue();
        assertThat(t.writer()).isFalse();
        OptionalInt again = t.take(Handover.FREEFLOW, path.toString());
        assertThat(again).as("the third takes the door from the second, its predecessor").isPresent();
        t.offer(Handover.FREEFLOW, path.toString(), TestDoor.adopt(again.getAsInt()));
        await().atMost(Duration.ofSeconds(5)).until(t::writer);
        assertThat(second.handedOver()).isTrue();
    }

    /**
     * Two instances started at the same moment: the second waits until the first has started (its doors offered),
     * then takes them over. It took over as soon as the first listened, with no doors to take, and the first then
     * bound them anyway: both served the CNI and Freeflow sockets, the second could not bind the HTTP port, and
     * stopping the first removed the sockets (found by the operator probe).
     */
    @Test
    void anInstanceStartedAtTheSameMomentWaitsForTheFirstsDoorsAndTakesThem() throws Exception {
        SocketHandover first = new SocketHandover(POSIX, stateDir, Duration.ofSeconds(30)).start();
        open.add(first);
        java.util.concurrent.CompletableFuture<SocketHandover> second = startElsewhere();
        Thread.sleep(300);
        assertThat(second).as("waits while the first starts").isNotDone();

        Path path = stateDir.resolve("cni.sock");
        first.offer(Handover.CNI, path.toString(), TestDoor.listen(path));
        first.started();
        SocketHandover s = second.get(10, java.util.concurrent.TimeUnit.SECONDS);
        OptionalInt fd = s.take(Handover.CNI, path.toString());
        assertThat(fd).as("the first's door, taken").isPresent();
        s.offer(Handover.CNI, path.toString(), TestDoor.adopt(fd.getAsInt()));
        await().atMost(Duration.ofSeconds(5)).until(s::writer);
        assertThat(first.handedOver()).isTrue();
    }

    /** A socket path named through a symlinked directory is the same door as the path it points to. */
    @Test
    void aDoorNamedThroughASymlinkedDirectoryIsTaken() throws Exception {
        SocketHandover first = start(Duration.ofSeconds(30));
        Path real = java.nio.file.Files.createDirectories(stateDir.resolve("cni"));
        Path link = java.nio.file.Files.createSymbolicLink(stateDir.resolve("cni-link"), real);
        first.offer(Handover.CNI, link.resolve("cni.sock").toString(), TestDoor.listen(real.resolve("cni.sock")));
        SocketHandover second = start(Duration.ofSeconds(30));

        OptionalInt fd = second.take(Handover.CNI, real.resolve("cni.sock").toString());

        assertThat(fd).isPresent();
        POSIX.close(fd.getAsInt());
    }

    @Test
    void theWriterLockPassesOnceTheSuccessorServesEveryDoorItTook() throws Exception {
        SocketHandover predecessor = start(Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(5)).until(predecessor::writer);
        AtomicInteger actions = new AtomicInteger();
        predecessor.onHandedOver(actions::incrementAndGet);
        Path path = stateDir.resolve("router.sock");
        predecessor.offer(Handover.FREEFLOW, path.toString(), TestDoor.listen(path));

        SocketHandover successor = start(Duration.ofSeconds(30));
        OptionalInt fd = successor.take(Handover.FREEFLOW, path.toString());
        Thread.sleep(200);
        assertThat(predecessor.handedOver()).as("not before the successor serves the door").isFalse();
        assertThat(successor.writer()).isFalse();
        successor.offer(Handover.FREEFLOW, path.toString(), TestDoor.adopt(fd.getAsInt()));

        await().atMost(Duration.ofSeconds(5)).until(successor::writer);
        assertThat(predecessor.handedOver()).isTrue();
        assertThat(predecessor.writer()).isFalse();
        assertThat(actions).hasValue(1);
        AtomicInteger late = new AtomicInteger();
        predecessor.onHandedOver(late::incrementAndGet);
        assertThat(late).as("runs at once once handed over").hasValue(1);
        assertThat(successor.handedOver()).isFalse();
    }

    @Test
    void aDoorTheSuccessorDoesNotServeHoldsTheHandoverOnlyUntilTheReadyTimeout() throws Exception {
        SocketHandover predecessor = start(Duration.ofSeconds(30));
        Path path = stateDir.resolve("router.sock");
        predecessor.offer(Handover.FREEFLOW, path.toString(), TestDoor.listen(path));

        SocketHandover successor = start(Duration.ofMillis(300));

        await().atMost(Duration.ofSeconds(5)).until(successor::writer);
        assertThat(predecessor.handedOver()).isTrue();
    }

    @Test
    void aThirdInstanceTakesOverFromTheSecond() throws Exception {
        SocketHandover first = start(Duration.ofSeconds(30));
        Path path = stateDir.resolve("cni.sock");
        first.offer(Handover.CNI, path.toString(), TestDoor.listen(path));
        SocketHandover second = start(Duration.ofSeconds(30));
        second.offer(Handover.CNI, path.toString(), TestDoor.adopt(second.take(Handover.CNI, path.toString()).getAsInt()));
        await().atMost(Duration.ofSeconds(5)).until(second::writer);
        first.close();

        SocketHandover third = start(Duration.ofSeconds(30));
        OptionalInt fd = third.take(Handover.CNI, path.toString());

        assertThat(fd).isPresent();
        SocketChannel client = connect(path);
        client.write(ByteBuffer.wrap("third".getBytes(StandardCharsets.UTF_8)));
        int accepted = POSIX.accept4(fd.getAsInt(), Posix.SOCK_CLOEXEC);
        assertThat(receive(accepted)).isEqualTo("third");
        POSIX.close(accepted);
        POSIX.close(fd.getAsInt());
    }

    @Test
    void aDoorTakenByASuccessorThatDiesBeforeReadyStaysListeningForTheNext() throws Exception {
        SocketHandover predecessor = start(Duration.ofSeconds(30));
        Path path = stateDir.resolve("cni.sock");
        predecessor.offer(Handover.CNI, path.toString(), TestDoor.listen(path));
        SocketHandover dying = new SocketHandover(POSIX, stateDir, Duration.ofSeconds(30)).start();
        POSIX.close(dying.take(Handover.CNI, path.toString()).getAsInt());

        dying.close(); // its session ends without READY: as if it was killed
        SocketChannel waiting = connect(path);
        waiting.write(ByteBuffer.wrap("waited".getBytes(StandardCharsets.UTF_8)));
        SocketHandover next = start(Duration.ofSeconds(30));
        OptionalInt fd = next.take(Handover.CNI, path.toString());

        assertThat(predecessor.handedOver()).isFalse();
        assertThat(fd).isPresent();
        int accepted = POSIX.accept4(fd.getAsInt(), Posix.SOCK_CLOEXEC);
        assertThat(receive(accepted)).isEqualTo("waited");
        POSIX.close(accepted);
        POSIX.close(fd.getAsInt());
    }

    /**
     * The predecessor stops (SIGTERM sent before the handover was over, as the takeover command did when a door was
     * still pending) while the successor waits for a door it does not serve: the successor takes the state
     * directory at once and listens, instead of waiting for its ready timeout with no writer and no one for a next
     * instance to take over from (operator probe: a third instance exited 5 meanwhile).
     */
    @Test
    void aSuccessorWhosePredecessorStopsBeforeItIsReadyTakesTheStateDirectoryAtOnce() throws Exception {
        SocketHandover predecessor = start(Duration.ofSeconds(30));
        Path cni = stateDir.resolve("cni.sock");
        Path router = stateDir.resolve("router.sock");
        predecessor.offer(Handover.CNI, cni.toString(), TestDoor.listen(cni));
        predecessor.offer(Handover.FREEFLOW, router.toString(), TestDoor.listen(router));
        SocketHandover successor = start(Duration.ofSeconds(30));
        successor.offer(Handover.CNI, cni.toString(),
                TestDoor.adopt(successor.take(Handover.CNI, cni.toString()).getAsInt()));   // Freeflow stays pending
        assertThat(successor.writer()).isFalse();

        predecessor.close();

        await().atMost(Duration.ofSeconds(5)).until(successor::writer);
        SocketHandover third = start(Duration.ofSeconds(30));
        OptionalInt fd = third.take(Handover.CNI, cni.toString());
        assertThat(fd).as("the next instance takes over from the successor").isPresent();
        POSIX.close(fd.getAsInt());
    }

    /**
     * Across PID namespaces (a DaemonSet's pods without hostPID) SO_PEERCRED names no pid: the successor is known
     * gone once the start lock it held while taking over is free, and its doors are taken back then (they stayed
     * unserved, operator probe).
     */
    @Test
    void aSuccessorWithoutAPidIsKnownGoneByTheStartLockItHeld() throws Exception {
        SocketHandover predecessor = start(Duration.ofSeconds(30));
        Path path = stateDir.resolve("cni.sock");
        TestDoor door = TestDoor.listen(path);
        predecessor.offer(Handover.CNI, path.toString(), door);
        Object session = new Object();
        POSIX.close(predecessor.handOver(session, Handover.CNI, path.toString()).fd());
        WriterLock starting = new WriterLock(POSIX, stateDir.resolve(Protocol.START_LOCK));
        assertThat(starting.tryAcquire()).as("the successor's start lock").isTrue();

        predecessor.sessionEnded(session, 0, true);
        Thread.sleep(300);
        assertThat(door.takenBack).as("still starting: its doors stay").hasValue(0);
        starting.close();                                  // its process is gone: the kernel lets go of the lock

        await().atMost(Duration.ofSeconds(5)).until(() -> door.takenBack.get() == 1);
        assertThat(predecessor.offered()).containsExactly(Handover.CNI, path.toString());
    }

    /**
     * A session that only looked (the {@code status} command, the launcher's check) ends without a successor lost:
     * every {@code status} call made the DRA driver publish its slices again and the device-plugin host look for
     * dead instances' sockets. A successor's own session says SUCCESSOR, through the real socket.
     */
    @Test
    void onlyASuccessorsEndIsASuccessorLost() throws Exception {
        SocketHandover predecessor = start(Duration.ofSeconds(30));
        AtomicInteger lost = new AtomicInteger();
        predecessor.onSuccessorLost(lost::incrementAndGet);

        predecessor.sessionEnded(new Object(), 0, false);     // nobody starting: the start lock is free
        Thread.sleep(300);
        assertThat(lost).as("a look is no successor").hasValue(0);
        predecessor.sessionEnded(new Object(), 0, true);
        await().atMost(Duration.ofSeconds(5)).until(() -> lost.get() == 1);

        SocketChannel probe = connect(stateDir.resolve(Protocol.SOCKET));
        assertThat(hello(probe)).startsWith(Protocol.HELLO);
        assertThat(request(probe, Protocol.SUCCESSOR)).isEqualTo(Protocol.SUCCESSOR + "\n");
    }

    /**
     * A successor stopped after it took a door (SIGSTOP here; a wedged JVM alike) holds the door unserved, and
     * kubelet's endpoints would be its own, for as long as it lives: silent past the READY it promised (its ready
     * timeout) and the grace, it is killed, and the predecessor takes the door back and serves on.
     */
    @Test
    void aSuccessorStoppedBeforeReadyIsKilledOnceItBreaksItsPromiseAndItsDoorComesBack() throws Exception {
        SocketHandover predecessor = start(Duration.ofSeconds(30));
        AtomicInteger lost = new AtomicInteger();
        predecessor.onSuccessorLost(lost::incrementAndGet);
        Path path = stateDir.resolve("cni.sock");
        TestDoor door = TestDoor.listen(path);
        predecessor.offer(Handover.CNI, path.toString(), door);
        Process successor = successorProcess(path, Duration.ofSeconds(2));
        try {
            assertThat(firstLine(successor)).isEqualTo("took");
            assertThat(new ProcessBuilder("sh", "-c", "kill -STOP " + successor.pid()).start().waitFor()).isZero();
            assertThat(door.fd()).as("lent: the predecessor stopped accepting").isEqualTo(-1);

            assertThat(successor.waitFor(2_000 + HandoverListener.READY_GRACE_MILLIS + 10_000,
                    java.util.concurrent.TimeUnit.MILLISECONDS)).as("killed").isTrue();
            assertThat(successor.exitValue()).as("by SIGKILL").isEqualTo(128 + Posix.SIGKILL);
            await().atMost(Duration.ofSeconds(5)).until(() -> door.takenBack.get() == 1);
            assertThat(lost).hasValue(1);
            assertThat(predecessor.handedOver()).isFalse();
            assertThat(predecessor.offered()).containsExactly(Handover.CNI, path.toString());
        } finally {
            successor.destroyForcibly();
        }
    }

    /** The same successor, not stopped: it says READY when its ready timeout ends and nothing stops it. */
    @Test
    void aSuccessorInAProcessOfItsOwnThatKeepsItsPromiseIsHandedOverTo() throws Exception {
        SocketHandover predecessor = start(Duration.ofSeconds(30));
        Path path = stateDir.resolve("cni.sock");
        predecessor.offer(Handover.CNI, path.toString(), TestDoor.listen(path));
        Process successor = successorProcess(path, Duration.ofSeconds(1));
        try {
            assertThat(firstLine(successor)).isEqualTo("took");

            await().atMost(Duration.ofSeconds(10)).until(predecessor::handedOver);
            Thread.sleep(500);
            assertThat(successor.isAlive()).isTrue();
        } finally {
            successor.getOutputStream().close();
            if (!successor.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                successor.destroyForcibly();
            }
        }
    }

    private Process successorProcess(Path door, Duration readyTimeout) throws IOException {
        return SuccessorProcess.start(stateDir, Handover.CNI, door, readyTimeout);
    }

    private static String firstLine(Process process) throws IOException {
        return new java.io.BufferedReader(new java.io.InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8)).readLine();
    }

    @Test
    void aStateDirectoryTooDeepForAUnixSocketStartsWithoutHandoverInsteadOfFailing() throws Exception {
        Path deep = java.nio.file.Files.createDirectories(stateDir.resolve("d".repeat(60)).resolve("e".repeat(60)));
        SocketHandover handover = new SocketHandover(POSIX, deep, Duration.ofSeconds(30)).start();
        open.add(handover);

        assertThat(handover.take(Handover.CNI, "/run/cni.sock")).isEmpty();
        await().atMost(Duration.ofSeconds(5)).until(handover::writer);
    }

    @Test
    void sessionsPastTheBoundAreClosedAtOnceAndAFreedSlotServesAgain() throws Exception {
        start(Duration.ofSeconds(30));
        Path socket = stateDir.resolve(Protocol.SOCKET);
        List<SocketChannel> held = new ArrayList<>();
        for (int i = 0; i < HandoverListener.MAX_SESSIONS; i++) {
            held.add(connect(socket));
            assertThat(hello(held.get(i))).startsWith(Protocol.HELLO);   // each is served
        }
        SocketChannel refused = connect(socket);
        String answer;
        try {
            answer = hello(refused);
        } catch (IOException closed) {                  // EPIPE / reset: closed before the request went out
            answer = "";
        }
        assertThat(answer).as("closed at once, unserved").isEmpty();

        held.get(0).close();
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            try (SocketChannel next = SocketChannel.open(StandardProtocolFamily.UNIX)) {
                next.connect(UnixDomainSocketAddress.of(socket));
                return hello(next).startsWith(Protocol.HELLO);
            } catch (IOException e) {
                return false;
            }
        });
    }

    @Test
    void connectionsThatSayNothingCannotKeepASuccessorOut() throws Exception {
        SocketHandover predecessor = start(Duration.ofSeconds(30));
        Path path = stateDir.resolve("cni.sock");
        TestDoor door = TestDoor.listen(path);
        predecessor.offer(Handover.CNI, path.toString(), door);
        Path socket = stateDir.resolve(Protocol.SOCKET);
        List<SocketChannel> silent = new ArrayList<>();
        for (int i = 0; i < HandoverListener.MAX_SESSIONS; i++) {
            silent.add(connect(socket));        // connected, never a request: every slot taken
        }

        SocketHandover successor = start(Duration.ofSeconds(30));

        assertThat(successor.take(Handover.CNI, path.toString())).as("served, not refused for want of a slot")
                .isPresent();
        assertThat(door.handedOver).hasValue(1);
        assertThat(readsEndOfStream(silent.get(0))).as("the oldest silent connection made room").isTrue();
    }

    @Test
    void aConnectionThatSendsNoRequestIsClosedAfterTheFirstRequestBound() throws Exception {
        start(Duration.ofSeconds(30));
        SocketChannel silent = connect(stateDir.resolve(Protocol.SOCKET));
        long started = System.nanoTime();

        assertThat(readsEndOfStream(silent)).isTrue();

        long waited = (System.nanoTime() - started) / 1_000_000;
        assertThat(waited).as("closed by the listener, after its bound").isBetween(
                HandoverListener.FIRST_REQUEST_MILLIS - 500, HandoverListener.FIRST_REQUEST_MILLIS * 3);
    }

    /** True when the other end closes the connection (within 20 s) without sending anything. */
    private static boolean readsEndOfStream(SocketChannel channel) throws IOException {
        java.nio.channels.Selector selector = java.nio.channels.Selector.open();
        try (selector) {
            channel.configureBlocking(false);
            channel.register(selector, java.nio.channels.SelectionKey.OP_READ);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < deadline) {
                if (selector.select(Math.max(1, (deadline - System.nanoTime()) / 1_000_000)) > 0) {
                    selector.selectedKeys().clear();
                    return channel.read(ByteBuffer.allocate(16)) < 0;
                }
            }
            return false;
        }
    }

    /** Sends one request line and returns the answer line; empty when the connection was closed instead. */
    private static String request(SocketChannel channel, String line) throws IOException {
        channel.write(ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8)));
        ByteBuffer answer = ByteBuffer.allocate(256);
        while (answer.position() == 0 || answer.get(answer.position() - 1) != '\n') {
            if (channel.read(answer) < 0) {
                return "";
            }
        }
        return new String(answer.array(), 0, answer.position(), StandardCharsets.UTF_8);
    }

    /** Sends HELLO and returns the answer line; empty when the connection was closed instead. */
    private static String hello(SocketChannel channel) throws IOException {
        return request(channel, Protocol.HELLO + "\t" + Protocol.VERSION + "\t1");
    }

    /** {@link #start} on another thread: an instance that may have to wait for its turn. */
    private java.util.concurrent.CompletableFuture<SocketHandover> startElsewhere() {
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return start(Duration.ofSeconds(30));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    /** An instance that starts, and whose launcher then announces at once that it has started. */
    private SocketHandover start(Duration readyTimeout) throws IOException {
        SocketHandover handover = new SocketHandover(POSIX, stateDir, readyTimeout).start();
        open.add(handover);
        handover.started();
        return handover;
    }

    private SocketChannel connect(Path path) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        channel.connect(UnixDomainSocketAddress.of(path));
        open.add(channel);
        return channel;
    }

    private static String receive(int fd) {
        byte[] buf = new byte[64];
        long n = POSIX.recv(fd, buf, buf.length, 0);
        return new String(buf, 0, (int) n, StandardCharsets.UTF_8);
    }
}
