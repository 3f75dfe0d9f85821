// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.kubelet.Device;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A SIGKILLed agent leaves its sockets; the next host removes those and nothing else (issue 8, item 8). */
class StaleSocketsTest {

    @TempDir
    Path dir;

    /** A socket file whose listener is gone, as a killed process leaves it (no unlink on close). */
    private static Path deadSocket(Path path) throws IOException {
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(path));
        }
        return path;
    }

    @Test
    void theNextHostRemovesOurDeadSocketsOnlyAndRegistersAfresh() throws IOException {
        Path oursDead = deadSocket(dir.resolve(ResourceNames.socketFileName("rdma/gone", "old1")));
        Path oursLongDead = deadSocket(dir.resolve(ResourceNames.socketFileName("rdma/" + "x".repeat(60), "old1")));
        Path beforeTags = deadSocket(dir.resolve("rdma-node-agent.rdma_gone.sock"));   // an agent before tags
        Path otherPlugin = deadSocket(dir.resolve("sriov-network-device-plugin.sock"));
        Path ourNameNotASocket = Files.writeString(dir.resolve("rdma-node-agent.notes.sock"), "kept");
        Path checkpoint = Files.writeString(dir.resolve("kubelet_internal_checkpoint"), "{}");
        try (ServerSocketChannel alive = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
             FakeKubelet kubelet = new FakeKubelet(dir).start()) {
            Path oursAlive = dir.resolve(ResourceNames.socketFileName("rdma/alive", "old2"));
            alive.bind(UnixDomainSocketAddress.of(oursAlive));

            try (KubeletDevicePluginHost host = new KubeletDevicePluginHost(new HostSettings(dir,
                    kubelet.socket(), 2000, 2000, 60_000, 1))) {
                assertThat(oursDead).doesNotExist();
                assertThat(oursLongDead).doesNotExist();
                assertThat(beforeTags).doesNotExist();
                assertThat(List.of(otherPlugin, ourNameNotASocket, checkpoint, kubelet.socket(), oursAlive))
                        .allSatisfy(p -> assertThat(p).exists());
                host.serve(new TestPlugin("rdma/gone", List.of(new Device("d", true, List.of()))));
                kubelet.awaitRegistrations("rdma/gone", 1, Duration.ofSeconds(5));
                assertThat(kubelet.plugin("rdma/gone").allocate(List.of("d")).getContainerResponsesCount())
                        .isEqualTo(1);
            }
        }
    }
}
