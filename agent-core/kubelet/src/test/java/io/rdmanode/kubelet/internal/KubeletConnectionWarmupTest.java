// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The warm-up reaches kubelet's socket as an HTTP/2 client, sends no call, and lets the connection go. */
class KubeletConnectionWarmupTest {

    private static final String PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

    @TempDir
    Path temp;

    @Test
    void connectsWithTheHttp2PrefaceThenCloses() throws Exception {
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "wu");   // sun_path: 107 bytes, any checkout depth
        Path socket = dir.resolve("kubelet.sock");
        try (ServerSocketChannel kubelet = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
             UdsTransport transport = new UdsTransport(1, "warmup-test", Runnable::run)) {
            kubelet.bind(UnixDomainSocketAddress.of(socket));
            CompletableFuture<String> seen = CompletableFuture.supplyAsync(() -> readUntilClosed(kubelet));

            KubeletConnectionWarmup.connect(transport, socket);

            // Everything the client sent before it closed: the preface and its SETTINGS, no HEADERS of a call.
            String sent = seen.get(10, TimeUnit.SECONDS);
            assertThat(sent).startsWith(PREFACE);
            assertThat(sent).doesNotContain("/v1beta1.Registration/Register");
        } finally {
            Files.deleteIfExists(socket);
            Files.deleteIfExists(dir);
        }
    }

    @Test
    void noKubeletSocketNoConnection() throws Exception {
        try (UdsTransport transport = new UdsTransport(1, "warmup-test", Runnable::run)) {
            long started = System.nanoTime();
            KubeletConnectionWarmup.connect(transport, temp.resolve("absent/kubelet.sock"));
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(1000);
        }
    }

    private static String readUntilClosed(ServerSocketChannel server) {
        try (SocketChannel client = server.accept()) {
            ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
            while (client.read(buffer) >= 0 && buffer.hasRemaining()) {
                // until the client closes its end
            }
            buffer.flip();
            return StandardCharsets.ISO_8859_1.decode(buffer).toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
