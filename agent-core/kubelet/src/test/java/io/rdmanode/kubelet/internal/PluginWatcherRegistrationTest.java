// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.kubelet.ServedResource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Registration through kubelet's plugin watcher (plugins_registry) instead of kubelet.sock. */
class PluginWatcherRegistrationTest {

    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final String RESOURCE = "rdma/test_a";

    @TempDir
    Path dir;
    private Path registry;
    private FakePluginWatcher kubelet;
    private KubeletDevicePluginHost host;

    @BeforeEach
    void start() throws IOException {
        registry = Files.createDirectories(dir.resolve("plugins_registry"));
        Path plugins = Files.createDirectories(dir.resolve("device-plugins"));
        kubelet = new FakePluginWatcher(registry);
        host = new KubeletDevicePluginHost(new HostSettings(plugins, plugins.resolve("kubelet.sock"), 2000, 2000,
                60_000, 1, HostSettings.Registration.AUTO, registry));
    }

    @AfterEach
    void stop() {
        host.close();
        kubelet.close();
    }

    @Test
    void autoPicksTheWatcherWhenItsDirectoryExistsAndIsFoundThere() throws IOException {
        ServedResource served = host.serve(new TestPlugin(RESOURCE, KubeletDevicePluginHostTest.devices(2, true)));

        FakeKubelet.Registration r = kubelet.awaitRegistrations(RESOURCE, 1, WAIT);

        assertThat(served.socket().getParent()).isEqualTo(registry);
        assertThat(r.endpoint()).isEqualTo(served.socket().toString());
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(served.socket()))).isEqualTo("rw-------");
        assertThat(kubelet.plugin(RESOURCE).latest(WAIT).getDevicesCount()).isEqualTo(2);
        Awaitility.await().atMost(WAIT).until(served::registered);
        assertThat(host.status().toString()).contains("registration=auto → watcher: kubelet called GetInfo (rdma/test_a)");
        assertThat(kubelet.plugin(RESOURCE).allocate(List.of("test_a-1")).getContainerResponsesCount()).isEqualTo(1);
    }

    @Test
    void isFoundAgainAfterKubeletRestartsAndAfterItsSocketIsDeleted() throws IOException {
        ServedResource served = host.serve(new TestPlugin(RESOURCE, KubeletDevicePluginHostTest.devices(1, true)));
        kubelet.awaitRegistrations(RESOURCE, 1, WAIT);

        for (int i = 2; i <= 6; i++) {
            kubelet.restart();
            FakeKubelet.Registration r = kubelet.awaitRegistrations(RESOURCE, i, Duration.ofSeconds(1));
            assertThat(Duration.ofNanos(r.nanos() - kubelet.restartedNanos())).isLessThan(Duration.ofSeconds(1));
        }
        Files.delete(served.socket());
        kubelet.awaitRegistrations(RESOURCE, 7, Duration.ofSeconds(1));
        assertThat(kubelet.plugin(RESOURCE).latest(WAIT).getDevicesCount()).isEqualTo(1);
    }

    @Test
    void reportsARefusalAsNotRegisteredWithKubeletsReason() {
        kubelet.refuseWith("resource name rejected by policy");
        ServedResource served = host.serve(new TestPlugin(RESOURCE, KubeletDevicePluginHostTest.devices(1, true)));

        Awaitility.await().atMost(WAIT).until(() -> !host.refused().isEmpty());
        assertThat(served.registered()).isFalse();
        assertThat(host.refused().get(RESOURCE)).contains("rejected by policy");
        assertThat(host.figures().get(0).registrationFailures()).isPositive();
    }
}
