// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmanode.posix.Posix;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.time.Duration;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The control socket handed to a successor router through its listening descriptor (as the handover bundle
 * passes it): new clients reach the successor, a client connected to the predecessor keeps its connection until
 * it closes it, and the predecessor's stop removes nothing.
 */
class ControlServerHandoverTest {

    private RouterFixture fx;
    private Router successorRouter;
    private ControlServer successor;

    @AfterEach
    void close() throws Exception {
        if (successor != null) {
            successor.close();
            successorRouter.close();
        }
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void newClientsGoToTheSuccessorWhileTheOldConnectionDrains() throws Exception {
        fx = new RouterFixture();
        assertThat(fx.client().allocPd()).isGreaterThanOrEqualTo(0);
        SocketChannel held = fx.client().open();
        await().atMost(Duration.ofSeconds(5)).until(() -> fx.server.openConnections() == 1);
        Posix posix = Posix.libc();
        int copy = posix.fcntl(fx.server.door().fd(), Posix.F_DUPFD_CLOEXEC, 0);

        fx.server.door().handedOver();
        successorRouter = new Router(new RouterSettings(fx.shm, "s", Limits.defaults(), PollerSettings.defaults()));
        successor = new ControlServer(fx.server.socket(), OptionalInt.of(copy), successorRouter,
                ControlSettings.defaults(), 100);

        assertThat(fx.client().allocPd()).isGreaterThanOrEqualTo(0);
        assertThat(successorRouter.tenants()).hasSize(1);
        assertThat(fx.server.handedOver()).isTrue();
        assertThat(fx.server.drain(100)).as("the held connection stays with the predecessor").isEqualTo(1);
        held.close();
        assertThat(fx.server.drain(5_000)).isZero();
        fx.server.close();
        assertThat(Files.exists(successor.socket())).as("the predecessor's stop leaves the successor's path").isTrue();
        assertThat(fx.client().allocPd()).isGreaterThanOrEqualTo(0);
    }
}
