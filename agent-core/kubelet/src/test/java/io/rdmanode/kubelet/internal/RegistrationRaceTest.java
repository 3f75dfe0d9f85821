// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.ServedResource;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Registration against a kubelet that restarts or stalls at the worst moment (issue 8, items 3 and 4): the
 * kubelet double is a real gRPC server on the directory's kubelet.sock, as in production.
 */
class RegistrationRaceTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir
    Path dir;
    private FakeKubelet kubelet;
    private KubeletDevicePluginHost host;

    @BeforeEach
    void start() throws IOException {
        kubelet = new FakeKubelet(dir).start();
        // A Register that kubelet never answers would hold for a minute: nothing below may wait for it.
        host = new KubeletDevicePluginHost(new HostSettings(dir, dir.resolve("kubelet.sock"), 60_000, 2000,
                60_000, 1));
    }

    @AfterEach
    void stop() {
        host.close();
        kubelet.close();
    }

    private static TestPlugin plugin(String resource) {
        return new TestPlugin(resource, List.of(new Device("d-0", true, List.of())));
    }

    /**
     * kubelet deletes our socket, the agent serves again and reads the old kubelet.sock, and kubelet replaces
     * kubelet.sock just as the agent dials: the agent registers with the new kubelet, which it must remember
     * as the one it registered with, or the replacement looks like one more restart and it registers twice.
     */
    @Test
    void registersOnceWhenKubeletReplacesItsSocketWhileTheAgentDials() {
        ServedResource served = host.serve(plugin("rdma/race"));
        kubelet.awaitRegistrations("rdma/race", 1, WAIT);
        AtomicBoolean armed = new AtomicBoolean(true);
        host.transport().beforeDial = socket -> {
            if (socket.equals(kubelet.socket()) && armed.compareAndSet(true, false)) {
                kubelet.replaceSocket();
            }
        };

        kubelet.deletePluginFiles();

        kubelet.awaitRegistrations("rdma/race", 2, WAIT);
        assertThat(armed).isFalse();
        // The watch reports kubelet.sock's replacement after the registration: nothing more may follow.
        Awaitility.await().during(Duration.ofMillis(700)).atMost(WAIT)
                .until(() -> kubelet.registrations("rdma/race") == 2);
        assertThat(host.servers().get(0).stats().kubeletRestarts.sum()).isZero();
        assertThat(kubelet.plugin("rdma/race").streamEnd()).isNull();
        assertThat(served.registered()).isTrue();
    }

    /** One pool's Register hanging in kubelet holds up no other pool. */
    @Test
    void registersPoolsInParallel() {
        kubelet.hold("rdma/slow");
        host.serve(plugin("rdma/slow"));
        Awaitility.await().atMost(WAIT).until(() -> kubelet.arrivedRegistrations().contains("rdma/slow"));

        host.serve(plugin("rdma/fast"));

        kubelet.awaitRegistrations("rdma/fast", 1, WAIT);
        assertThat(kubelet.registrations("rdma/slow")).isZero();
        kubelet.release("rdma/slow");
        kubelet.awaitRegistrations("rdma/slow", 1, WAIT);
    }

    /**
     * A pool closed while its Register is in flight (a config save replacing the pool) cancels the call, so
     * kubelet never dials back to a socket that is gone or, worse, to its successor under the same name, and
     * the successor registers at once.
     */
    @Test
    void closingAPoolCancelsItsRegistrationInFlight() {
        kubelet.hold("rdma/replaced");
        ServedResource old = host.serve(plugin("rdma/replaced"));
        host.serve(plugin("rdma/other"));
        Awaitility.await().atMost(WAIT).until(() -> kubelet.arrivedRegistrations().contains("rdma/replaced"));

        old.close();

        Awaitility.await().atMost(WAIT).until(() -> kubelet.cancelledRegistrations().contains("rdma/replaced"));
        kubelet.release("rdma/replaced");
        host.serve(plugin("rdma/replaced"));
        kubelet.awaitRegistrations("rdma/replaced", 1, WAIT);
        kubelet.awaitRegistrations("rdma/other", 1, WAIT);
        assertThat(kubelet.registrations("rdma/replaced")).isEqualTo(1);
        assertThat(host.figures()).extracting(f -> f.registrationFailures()).containsOnly(0L);
    }
}
