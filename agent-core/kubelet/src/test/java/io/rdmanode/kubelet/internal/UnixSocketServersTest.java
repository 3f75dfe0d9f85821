// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.rdmanode.kubelet.UnixSocketServers.UnixSocketServer;
import io.rdmanode.kubelet.internal.pluginregistration.InfoRequest;
import io.rdmanode.kubelet.internal.pluginregistration.RegistrationGrpc;
import io.rdmanode.kubelet.internal.pluginregistration.RegistrationStatus;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The exported Unix-socket gRPC server helper, called the way a CNI or Freeflow bundle would. */
class UnixSocketServersTest {

    @TempDir
    Path dir;
    private final UnixSocketServersComponent servers = new UnixSocketServersComponent();

    @AfterEach
    void stop() {
        servers.stop();
    }

    @Test
    void servesAGrpcServiceOnAUnixSocketWithItsModeAndRemovesItOnClose() throws IOException {
        Path socket = dir.resolve("cni.sock");
        Files.createFile(dir.resolve("unrelated"));
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            dead.bind(UnixDomainSocketAddress.of(socket));      // a killed agent's socket file stays behind
        }
        UnixSocketServer server = servers.serve(socket, PosixFilePermissions.fromString("rw-------"),
                List.of(new PluginWatcherService("example.com/x", socket, () -> { }, (ok, error) -> { })));

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket))).isEqualTo("rw-------");
        try (UdsTransport client = new UdsTransport(1, "test-client", Executors.newCachedThreadPool())) {
            ManagedChannel channel = client.dial(socket);
            assertThat(RegistrationGrpc.newBlockingStub(channel).getInfo(InfoRequest.getDefaultInstance()).getName())
                    .isEqualTo("example.com/x");
            channel.shutdownNow();
        }
        server.close();
        server.close();
        assertThat(socket).doesNotExist();
        assertThat(dir.resolve("unrelated")).exists();
    }

    /**
     * A message over 1 MiB is RESOURCE_EXHAUSTED from its length prefix, before it is buffered: grpc-java's default
     * of 4 MiB let 30 unfinished requests on the DRA socket take the agent's whole direct memory (probe).
     */
    @Test
    void aMessageOverTheLimitIsRefusedAndTheServerServesOn() throws IOException {
        Path socket = dir.resolve("dra.sock");
        servers.serve(socket, PosixFilePermissions.fromString("rw-------"),
                List.of(new PluginWatcherService("example.com/x", socket, () -> { }, (ok, error) -> { })));
        try (UdsTransport client = new UdsTransport(1, "test-client", Executors.newCachedThreadPool())) {
            ManagedChannel channel = client.dial(socket);
            RegistrationStatus huge = RegistrationStatus.newBuilder()
                    .setError("x".repeat(UnixSocketServersComponent.MAX_MESSAGE_BYTES)).build();
            assertThatThrownBy(() -> RegistrationGrpc.newBlockingStub(channel).notifyRegistrationStatus(huge))
                    .isInstanceOfSatisfying(io.grpc.StatusRuntimeException.class, e -> assertThat(
                            e.getStatus().getCode()).isEqualTo(io.grpc.Status.Code.RESOURCE_EXHAUSTED));
            assertThat(RegistrationGrpc.newBlockingStub(channel).getInfo(InfoRequest.getDefaultInstance()).getName())
                    .isEqualTo("example.com/x");
            channel.shutdownNow();
        }
    }

    @Test
    void refusesAPathLongerThanSunPathAndASocketInUse() throws IOException {
        Path tooLong = dir.resolve("s".repeat(120) + ".sock");
        assertThatThrownBy(() -> servers.serve(tooLong, PosixFilePermissions.fromString("rw-------"),
                List.of(new PluginWatcherService("example.com/x", tooLong, () -> { }, (ok, error) -> { }))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("sun_path");
        Path socket = dir.resolve("busy.sock");
        try (ServerSocketChannel live = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            live.bind(UnixDomainSocketAddress.of(socket));
            assertThatThrownBy(() -> servers.serve(socket, PosixFilePermissions.fromString("rw-------"),
                    List.of(new PluginWatcherService("example.com/x", socket, () -> { }, (ok, error) -> { }))))
                    .isInstanceOf(IOException.class);
            assertThat(socket).exists();
        }
    }
}
