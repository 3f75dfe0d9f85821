// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.handover.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.agent.Handover;
import io.rdmanode.posix.Posix;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The predecessor's book of doors when a successor's session ends before READY: the lent socket stays listening,
 * and once that successor is gone the door that lent it accepts on it again, with what waited in its backlog.
 */
class OfferedDoorsTest {

    private static final Posix POSIX = Posix.libc();

    @TempDir
    Path dir;
    private final OfferedDoors doors = new OfferedDoors(POSIX);

    @AfterEach
    void close() {
        doors.close();
    }

    @Test
    void aDoorLentToASuccessorThatDiedIsTakenBackWithWhatWaitedInItsBacklog() throws Exception {
        Path path = dir.resolve("cni.sock");
        TestDoor door = TestDoor.listen(path);
        doors.offer(Handover.CNI, path.toString(), door);
        Object session = new Object();
        HandoverListener.Taken taken = doors.lend(session, Handover.CNI, path.toString());
        POSIX.close(taken.fd());                       // the successor's copy goes with its process

        assertThat(doors.returned(session)).isTrue();
        try (SocketChannel waiting = connect(path)) {
            waiting.write(ByteBuffer.wrap("waited".getBytes(StandardCharsets.UTF_8)));

            assertThat(doors.takeBack(session)).containsExactly(Handover.CNI);
            assertThat(door.takenBack).hasValue(1);
            int accepted = POSIX.accept4(door.fd(), Posix.SOCK_CLOEXEC);
            assertThat(receive(accepted)).isEqualTo("waited");
            POSIX.close(accepted);
        }
        // Offered as the door it was: the next successor takes it from the door, which stops accepting again.
        assertThat(doors.fields()).containsExactly(Handover.CNI, path.toString());
        HandoverListener.Taken again = doors.lend(new Object(), Handover.CNI, path.toString());
        assertThat(again.fd()).isNotNegative();
        assertThat(door.handedOver).hasValue(2);
        POSIX.close(again.fd());
    }

    @Test
    void aDoorThatCannotTakeItsSocketBackLeavesItListeningForTheNextInstance() throws Exception {
        Path path = dir.resolve("http.sock");
        TestDoor door = TestDoor.listen(path);
        door.canTakeBack = false;
        doors.offer(Handover.HTTP, path.toString(), door);
        Object session = new Object();
        POSIX.close(doors.lend(session, Handover.HTTP, path.toString()).fd());
        doors.returned(session);

        assertThat(doors.takeBack(session)).isEmpty();
        try (SocketChannel waiting = connect(path)) {
            waiting.write(ByteBuffer.wrap("still".getBytes(StandardCharsets.UTF_8)));
            HandoverListener.Taken next = doors.lend(new Object(), Handover.HTTP, path.toString());
            int accepted = POSIX.accept4(next.fd(), Posix.SOCK_CLOEXEC);
            assertThat(receive(accepted)).isEqualTo("still");
            POSIX.close(accepted);
            POSIX.close(next.fd());
        }
    }

    @Test
    void aSessionThatReachedReadyHasNothingToTakeBack() throws Exception {
        Path path = dir.resolve("ff.sock");
        TestDoor door = TestDoor.listen(path);
        doors.offer(Handover.FREEFLOW, path.toString(), door);
        Object session = new Object();
        POSIX.close(doors.lend(session, Handover.FREEFLOW, path.toString()).fd());
        doors.kept(session);

        assertThat(doors.returned(session)).isFalse();
        assertThat(doors.takeBack(session)).isEmpty();
        assertThat(door.takenBack).hasValue(0);
    }

    private static SocketChannel connect(Path path) throws IOException {
        return SocketChannel.open(UnixDomainSocketAddress.of(path));
    }

    private static String receive(int fd) {
        byte[] buf = new byte[64];
        long n = POSIX.recv(fd, buf, buf.length, 0);
        return new String(buf, 0, (int) n, StandardCharsets.UTF_8);
    }
}
