// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.agent.Handover;
import io.rdmanode.posix.Posix;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CNI socket passed to a successor as a descriptor (as the handover bundle passes it) and adopted by a JDK
 * channel: the successor answers at once, including a client that connected while nobody accepted, and the
 * predecessor's stop leaves the path alone.
 */
class CniServerHandoverTest {

    @TempDir
    Path dir;

    @Test
    void theSuccessorAnswersOnTheAdoptedSocketAndThePredecessorLeavesThePath() throws Exception {
        Path path = dir.resolve("run/cni.sock");
        CniServer predecessor = new CniServer(path, (env, stdin) -> new CniHandler.Response(0, "old"));
        assertThat(call(path)).isEqualTo("0\nold");
        Handover.Door door = predecessor.door().orElseThrow();
        int copy = Posix.libc().fcntl(door.fd(), Posix.F_DUPFD_CLOEXEC, 0);

        door.handedOver();
        SocketChannel waiting = connect(path); // in the backlog: neither instance accepts now
        CniServer successor = new CniServer(path, OptionalInt.of(copy), (env, stdin) -> new CniHandler.Response(0,
                "new " + env.get("CNI_COMMAND")), CniServer.Limits.DEFAULTS, new CniStats());

        assertThat(exchange(waiting)).isEqualTo("0\nnew VERSION");
        assertThat(call(path)).isEqualTo("0\nnew VERSION");
        predecessor.close();
        assertThat(Files.exists(path)).isTrue();
        assertThat(call(path)).isEqualTo("0\nnew VERSION");
        assertThat(successor.door()).as("the adopted socket can be handed on again").isPresent();
        successor.close();
        assertThat(Files.exists(path)).isFalse();
    }

    /**
     * The successor the socket was lent to died before it served it: the server accepts on it again, answers what
     * waited in the backlog, and can lend it once more. The handover keeps a lower-numbered copy of the socket open
     * while it hands it back and closes it after: the door's descriptor must be the server's own (it named that
     * copy, and the next lend failed with EBADF, operator probe).
     */
    @Test
    void aSocketTakenBackIsServedAgainAndCanBeLentAgain() throws Exception {
        Posix posix = Posix.libc();
        Path path = dir.resolve("run/cni.sock");
        CniServer server = new CniServer(path, (env, stdin) -> new CniHandler.Response(0, "here"));
        Handover.Door door = server.door().orElseThrow();
        int kept = posix.fcntl(door.fd(), Posix.F_DUPFD_CLOEXEC, 0);     // what the handover keeps while lent
        int lent = posix.fcntl(door.fd(), Posix.F_DUPFD_CLOEXEC, 0);     // the successor's copy
        door.handedOver();
        posix.close(lent);                                               // the successor died with it
        SocketChannel waiting = connect(path);

        assertThat(door.takeBack(posix.fcntl(kept, Posix.F_DUPFD_CLOEXEC, 0))).isTrue();
        posix.close(kept);                                               // the handover lets go of its copy

        assertThat(exchange(waiting)).isEqualTo("0\nhere");
        assertThat(call(path)).isEqualTo("0\nhere");
        int again = posix.fcntl(door.fd(), Posix.F_DUPFD_CLOEXEC, 0);    // a later successor's copy
        door.handedOver();
        CniServer next = new CniServer(path, OptionalInt.of(again), (env, stdin) -> new CniHandler.Response(0,
                "next"), CniServer.Limits.DEFAULTS, new CniStats());
        assertThat(call(path)).isEqualTo("0\nnext");
        server.close();
        next.close();
    }

    private static SocketChannel connect(Path path) throws IOException {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        channel.connect(UnixDomainSocketAddress.of(path));
        return channel;
    }

    private static String call(Path path) throws IOException {
        return exchange(connect(path));
    }

    private static String exchange(SocketChannel channel) throws IOException {
        try (channel) {
            byte[] request = (CniServer.MAGIC + "CNI_COMMAND=VERSION\0\0{}").getBytes(StandardCharsets.UTF_8);
            ByteBuffer out = ByteBuffer.wrap(request);
            while (out.hasRemaining()) {
                channel.write(out);
            }
            channel.shutdownOutput();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            ByteBuffer in = ByteBuffer.allocate(4096);
            while (channel.read(in.clear()) > 0) {
                answer.write(in.array(), 0, in.position());
            }
            return answer.toString(StandardCharsets.UTF_8);
        }
    }
}
