// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PredecessorProbeTest {

    @TempDir
    Path stateDir;

    @Test
    void noSocketOrAStaleOneMeansNoPredecessor() throws Exception {
        assertThat(PredecessorProbe.find(stateDir, Duration.ofSeconds(1))).isEmpty();
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            dead.bind(UnixDomainSocketAddress.of(stateDir.resolve(PredecessorProbe.SOCKET)));
        } // closed: the file stays, nobody listens
        assertThat(PredecessorProbe.find(stateDir, Duration.ofSeconds(1))).isEmpty();
    }

    @Test
    void aRunningPredecessorNamesItsDoors() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(stateDir.resolve(PredecessorProbe.SOCKET)));
            Thread predecessor = new Thread(() -> answer(server));
            predecessor.start();

            var found = PredecessorProbe.find(stateDir, Duration.ofSeconds(5));

            assertThat(found).hasValue(new PredecessorProbe.Predecessor(7,
                    Map.of("http", "127.0.0.1:9456", "cni", "/run/rdma/cni.sock")));
            predecessor.join(5000);
        }
    }

    @Test
    void aListenerThatDoesNotAnswerIsNoPredecessor() throws Exception {
        try (ServerSocketChannel silent = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            silent.bind(UnixDomainSocketAddress.of(stateDir.resolve(PredecessorProbe.SOCKET)));

            assertThat(PredecessorProbe.find(stateDir, Duration.ofMillis(200))).isEmpty();
        }
    }

    private static void answer(ServerSocketChannel server) {
        try (SocketChannel c = server.accept()) {
            BufferedReader in = new BufferedReader(new InputStreamReader(Channels.newInputStream(c), StandardCharsets.UTF_8));
            var out = Channels.newOutputStream(c);
            assertThat(in.readLine()).startsWith("HELLO\t1\t");
            out.write("HELLO\t1\t7\n".getBytes(StandardCharsets.UTF_8));
            assertThat(in.readLine()).isEqualTo("DOORS");
            out.write("DOORS\thttp\t127.0.0.1:9456\tcni\t/run/rdma/cni.sock\n".getBytes(StandardCharsets.UTF_8));
            in.readLine();
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }
}
