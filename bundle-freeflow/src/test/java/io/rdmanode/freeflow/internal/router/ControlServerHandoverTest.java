// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.posix.Posix;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The control socket handed to a successor router through its listening descriptor (as the handover bundle
 * passes it). New clients reach the successor; a client process that started on the predecessor keeps being
 * served there, although it opens a new connection per verb and the successor accepts those: the successor
 * passes them back through the predecessor's drain desk. The drain ends once the predecessor's tenants have
 * ended; a predecessor that is gone or does not answer leaves the successor serving everything itself.
 */
class ControlServerHandoverTest {

    private RouterFixture fx;
    private Router successorRouter;
    private ControlServer successor;
    private final List<Process> started = new ArrayList<>();
    private final List<AutoCloseable> more = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (Process p : started) {
            p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        for (AutoCloseable c : more) {
            c.close();
        }
        if (successor != null) {
            successor.close();
            successorRouter.close();
        }
        if (fx != null) {
            fx.close();
        }
    }

    /** What the handover bundle does: a duplicate of the listening descriptor, the door handed over, adopted. */
    private void handOver() throws IOException {
        successorRouter = new Router(new RouterSettings(fx.shm, "s", Limits.defaults(), PollerSettings.defaults()));
        successor = takeOver(fx.server, successorRouter);
    }

    private static ControlServer takeOver(ControlServer predecessor, Router router) throws IOException {
        int copy = Posix.libc().fcntl(predecessor.door().fd(), Posix.F_DUPFD_CLOEXEC, 0);
        predecessor.door().handedOver();
        return new ControlServer(predecessor.socket(), OptionalInt.of(copy), router, ControlSettings.defaults(), 100);
    }

    @Test
    void newClientsGoToTheSuccessorWhileTheOldConnectionDrains() throws Exception {
        fx = new RouterFixture();
        SocketChannel held = fx.client().open();
        await().atMost(Duration.ofSeconds(5)).until(() -> fx.server.openConnections() == 1);

        handOver();

        assertThat(fx.client().allocPd()).isGreaterThanOrEqualTo(0);
        assertThat(successorRouter.tenants()).hasSize(1);
        assertThat(fx.server.handedOver()).isTrue();
        assertThat(fx.server.takenBackFromSuccessor()).as("this JVM was no tenant of the predecessor").isZero();
        assertThat(fx.server.drain(100)).as("the held connection stays with the predecessor").isEqualTo(1);
        held.close();
        assertThat(fx.server.drain(5_000)).isZero();
        assertThat(DrainDesk.pathFor(fx.server.socket())).as("the desk closes with the drain").doesNotExist();
        fx.server.close();
        assertThat(Files.exists(successor.socket())).as("the predecessor's stop leaves the successor's path").isTrue();
        assertThat(fx.client().allocPd()).isGreaterThanOrEqualTo(0);
    }

    @Test
    void aTenantsNextVerbAfterTheHandoverIsServedByThePredecessorThatKnowsItsObjects() throws Exception {
        fx = new RouterFixture();
        FfClient me = fx.client();
        int pd = me.allocPd();
        FfClient.Cq cq = me.createCq(16);

        handOver();

        assertThat(me.ret(FfClient.DEALLOC_PD, pd)).as("the PD is the predecessor's").isZero();
        assertThat(me.ret(FfClient.DESTROY_CQ, cq.handle())).isZero();
        assertThat(successorRouter.tenants()).as("nothing of this tenant reached the successor").isEmpty();
        assertThat(fx.server.takenBackFromSuccessor()).isEqualTo(2);
        assertThat(successor.forwardedToPredecessor()).isEqualTo(2);
        assertThat(fx.server.drain(10_000)).as("no object left here: the drain ends").isZero();
        assertThat(fx.router.tenantsHoldingObjects()).isZero();

        // The desk is closed: the successor learns it at its next question and serves everything from then on.
        assertThat(me.allocPd()).isPositive();
        assertThat(successor.linkedToPredecessor()).isFalse();
        assertThat(successorRouter.tenants()).hasSize(1);
    }

    @Test
    void aTenantThatHoldsNothingOnThePredecessorMovesOnToTheSuccessor() throws Exception {
        fx = new RouterFixture();
        FfClient me = fx.client();
        assertThat(me.ret(FfClient.DEALLOC_PD, me.allocPd())).isZero();
        assertThat(fx.router.tenants()).hasSize(1);

        handOver();

        assertThat(me.allocPd()).isPositive();
        assertThat(successorRouter.tenants()).as("a live tenant there, but it lost nothing by moving").hasSize(1);
        assertThat(fx.server.takenBackFromSuccessor()).isZero();
        assertThat(fx.server.drain(10_000)).isZero();
    }

    @Test
    void aTenantProcessRunsThroughTheHandoverAndANewOneIsServedByTheSuccessor() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CClientTest.BINARY), "target/ffclient not built (gcc missing)");
        fx = new RouterFixture();
        PausedClient old = startPaused();
        assertThat(fx.router.tenants()).extracting(TenantFigures::pid).containsExactly(old.pid());

        handOver();

        // A tenant started after the handover runs its whole test on the successor.
        Process fresh = startC("selftest");
        assertThat(fresh.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(new String(fresh.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).startsWith("OK");
        assertThat(fresh.exitValue()).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> successorRouter.stats().tenantsReclaimed() == 1);
        assertThat(fx.router.tenants()).extracting(TenantFigures::pid).containsExactly(old.pid());

        // The old one goes on with its objects: a new MR on its PD, sends, RDMA and a CQ event, a connection a verb.
        old.go();
        old.assertRanToTheEnd();
        assertThat(fx.server.takenBackFromSuccessor()).isGreaterThanOrEqualTo(3);
        assertThat(successor.forwardedToPredecessor()).isEqualTo(fx.server.takenBackFromSuccessor());
        assertThat(successorRouter.tenants()).extracting(TenantFigures::pid).doesNotContain(old.pid());

        assertThat(fx.server.drain(20_000)).as("the old tenant exited: the drain ends").isZero();
        assertThat(fx.router.tenants()).isEmpty();
        assertThat(DrainDesk.pathFor(fx.server.socket())).doesNotExist();
    }

    @Test
    void handoversFasterThanDrainsMakeAChainThatRelaysEachTenantToItsRouter() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CClientTest.BINARY), "target/ffclient not built (gcc missing)");
        fx = new RouterFixture();
        PausedClient first = startPaused();

        Router middleRouter = new Router(new RouterSettings(fx.shm, "m", Limits.defaults(), PollerSettings.defaults()));
        more.add(middleRouter);
        ControlServer middle = takeOver(fx.server, middleRouter);
        more.add(0, middle);
        PausedClient second = startPaused();
        assertThat(middleRouter.tenants()).extracting(TenantFigures::pid).containsExactly(second.pid());

        // The middle router hands over while the first still drains: the last one reaches both through it.
        successorRouter = new Router(new RouterSettings(fx.shm, "s", Limits.defaults(), PollerSettings.defaults()));
        successor = takeOver(middle, successorRouter);
        first.go();
        second.go();
        first.assertRanToTheEnd();
        second.assertRanToTheEnd();
        assertThat(fx.server.takenBackFromSuccessor()).as("the first tenant's verbs, relayed by the middle").isPositive();
        assertThat(middle.forwardedToPredecessor()).isEqualTo(fx.server.takenBackFromSuccessor());
        assertThat(successorRouter.tenants()).isEmpty();

        assertThat(fx.server.drain(20_000)).isZero();
        assertThat(DrainDesk.pathFor(fx.server.socket())).as("the first removes no desk of the middle's").exists();
        assertThat(middle.drain(20_000)).as("its tenant ended and so did its predecessor's drain").isZero();
        assertThat(DrainDesk.pathFor(fx.server.socket())).doesNotExist();
        await().atMost(Duration.ofSeconds(10)).until(() -> !successor.linkedToPredecessor());
    }

    @Test
    void theDeskEndsASessionThatSpeaksOutOfProtocolAndAnswersTheNext() throws Exception {
        fx = new RouterFixture();
        FfClient me = fx.client();
        me.allocPd();
        fx.server.door().handedOver();
        Path desk = DrainDesk.pathFor(fx.server.socket());
        assertThat(Files.getPosixFilePermissions(desk)).as("its owner's only")
                .isEqualTo(PosixFilePermissions.fromString("rw-------"));
        try (SocketChannel rogue = SocketChannel.open(UnixDomainSocketAddress.of(desk))) {
            rogue.write(ByteBuffer.wrap("HELLO\n".getBytes(StandardCharsets.UTF_8)));
            assertThat(rogue.read(ByteBuffer.allocate(16))).as("closed without an answer").isEqualTo(-1);
        }
        try (SocketChannel asking = SocketChannel.open(UnixDomainSocketAddress.of(desk))) {
            String mine = ProcessHandle.current().pid() + "\t" + Files.getAttribute(desk, "unix:uid");
            asking.write(ByteBuffer.wrap(("ASK\t" + mine + "\nASK\t1\t0\n").getBytes(StandardCharsets.UTF_8)));
            ByteBuffer answers = ByteBuffer.allocate(9);
            while (answers.hasRemaining() && asking.read(answers) >= 0) {
                // both answers: "MINE\nNOT\n"
            }
            assertThat(new String(answers.array(), StandardCharsets.UTF_8)).isEqualTo("MINE\nNOT\n");
        }
    }

    @Test
    void aGonePredecessorLeavesItsTenantsToTheSuccessorWhereTheirHandlesAreUnknown() throws Exception {
        fx = new RouterFixture();
        FfClient me = fx.client();
        int pd = me.allocPd();

        handOver();
        fx.server.close();                               // the predecessor ends (its desk with it)

        assertThat(me.ret(FfClient.DEALLOC_PD, pd)).as("EINVAL from the successor, not a hang").isEqualTo(22);
        assertThat(successor.linkedToPredecessor()).isFalse();
        assertThat(successorRouter.tenants()).hasSize(1);
        assertThat(me.allocPd()).isPositive();
    }

    @Test
    void aPredecessorThatDoesNotAnswerIsLeftAfterTheAnswerDeadline() throws Exception {
        fx = new RouterFixture();
        int copy = Posix.libc().fcntl(fx.server.door().fd(), Posix.F_DUPFD_CLOEXEC, 0);
        fx.server.door().handedOver();
        // A desk that accepts and never answers takes the place of the predecessor's, where the successor looks.
        Path desk = DrainDesk.pathFor(fx.server.socket());
        Files.delete(desk);
        try (ServerSocketChannel mute = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            mute.bind(UnixDomainSocketAddress.of(desk));
            successorRouter = new Router(new RouterSettings(fx.shm, "s", Limits.defaults(), PollerSettings.defaults()));
            successor = new ControlServer(fx.server.socket(), OptionalInt.of(copy), successorRouter,
                    ControlSettings.defaults(), 100);
            assertThat(successor.linkedToPredecessor()).isTrue();

            assertThat(fx.client().allocPd()).as("served here once the question timed out").isPositive();
            assertThat(successor.linkedToPredecessor()).isFalse();
            assertThat(successorRouter.tenants()).hasSize(1);
            assertThat(fx.client().allocPd()).isPositive();
            assertThat(fx.server.drain(0)).isZero();
            assertThat(desk).as("the predecessor removes its own desk only").exists();
        }
    }

    private Process startC(String mode) throws IOException {
        Process p = CClientTest.command(fx, List.of(), mode).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        started.add(p);
        return p;
    }

    /** The C client in its {@code handover} mode, set up on the router that serves now and waiting for its go. */
    private PausedClient startPaused() throws IOException {
        Process p = startC("handover");
        PausedClient c = new PausedClient(p, new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.UTF_8)));
        assertThat(c.out().readLine()).isEqualTo("READY");
        return c;
    }

    private record PausedClient(Process process, BufferedReader out) {
        int pid() {
            return (int) process.pid();
        }

        /** Goes on with the objects it made: every verb on a new connection. */
        void go() throws IOException {
            try (OutputStream in = process.getOutputStream()) {
                in.write("go\n".getBytes(StandardCharsets.UTF_8));
            }
        }

        void assertRanToTheEnd() throws Exception {
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(out.readLine()).startsWith("OK");
            assertThat(process.exitValue()).isZero();
        }
    }
}
