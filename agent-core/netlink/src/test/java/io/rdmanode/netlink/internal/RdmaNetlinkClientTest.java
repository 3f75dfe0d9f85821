// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.netlink.RdmaLink;
import io.rdmanode.netlink.RdmaNetnsMode;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The real client's bytes against a fake kernel peer: move into a pod namespace and back, and each failure. */
class RdmaNetlinkClientTest {

    private final FakeRdmaKernel kernel = new FakeRdmaKernel();
    private final RdmaNetlinkClient client = new RdmaNetlinkClient(kernel, kernel, kernel);
    private static final Path POD = Path.of("/var/run/netns/pod1");

    @BeforeEach
    void devices() {
        kernel.device("mlx5_3", 3);
        kernel.device("mlx5_4", 4);
    }

    @Test
    void modeReadAndSet() {
        assertThat(client.netnsMode()).isEqualTo(RdmaNetnsMode.SHARED);
        client.setNetnsMode(RdmaNetnsMode.EXCLUSIVE);
        assertThat(client.netnsMode()).isEqualTo(RdmaNetnsMode.EXCLUSIVE);
    }

    @Test
    void movesIntoThePodAndBack() {
        kernel.mode = 0;
        client.moveToNetns("mlx5_3", POD);

        assertThat(kernel.deviceNetns).containsEntry("mlx5_3", "pod1");
        assertThat(client.links()).extracting(RdmaLink::name).containsExactly("mlx5_4");
        assertThat(client.linksIn(POD)).extracting(RdmaLink::name).containsExactly("mlx5_3");

        client.returnFromNetns("mlx5_3", POD);

        assertThat(kernel.deviceNetns).containsEntry("mlx5_3", FakeRdmaKernel.HOST);
        assertThat(kernel.openFds).as("every netns fd closed").isEmpty();
    }

    @Test
    void sharedModeMoveIsEopnotsupp() {
        assertThatThrownBy(() -> client.moveToNetns("mlx5_3", POD)).isInstanceOf(NetlinkException.class)
                .hasMessageContaining("EOPNOTSUPP").satisfies(e -> assertThat(((NetlinkException) e).errno())
                        .isEqualTo(NetlinkException.EOPNOTSUPP));
        assertThat(kernel.deviceNetns).containsEntry("mlx5_3", FakeRdmaKernel.HOST);
    }

    @Test
    void driverFailuresCarryErrno() {
        kernel.mode = 0;
        kernel.failMoveWith = NetlinkException.EPERM;
        assertThatThrownBy(() -> client.moveToNetns("mlx5_3", POD)).hasMessageContaining("EPERM")
                .hasMessageContaining("CAP_NET_ADMIN");
        assertThat(kernel.openFds).isEmpty();
    }

    @Test
    void unknownDeviceAndGoneNamespace() {
        kernel.mode = 0;
        assertThatThrownBy(() -> client.moveToNetns("mlx5_9", POD)).isInstanceOf(NetlinkException.class)
                .satisfies(e -> assertThat(((NetlinkException) e).errno()).isEqualTo(NetlinkException.ENODEV));
        assertThatThrownBy(() -> client.moveToNetns("mlx5_3", Path.of("/var/run/netns/gone")))
                .satisfies(e -> assertThat(((NetlinkException) e).errno()).isEqualTo(NetlinkException.ENOENT));
        assertThatThrownBy(() -> client.returnFromNetns("mlx5_3", POD)).as("not in the pod")
                .satisfies(e -> assertThat(((NetlinkException) e).errno()).isEqualTo(NetlinkException.ENODEV));
        assertThat(kernel.openFds).isEmpty();
    }

    @Test
    void modeChangeRefusedWhileNamespacesExist() {
        kernel.open(POD);
        assertThatThrownBy(() -> client.setNetnsMode(RdmaNetnsMode.EXCLUSIVE)).hasMessageContaining("EBUSY");
    }
}
