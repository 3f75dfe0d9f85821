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
