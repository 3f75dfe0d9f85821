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

    private static final Duration WAIT = Duration.ofSeconds(15);   // a bound, not a figure: loaded CI machines
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

        // Counted from what came before each step: a restart closes the stream, and the plugin may serve a new
        // socket file that the watcher registers once more. How fast is bench-kubelet-host's to say.
        for (int i = 0; i < 5; i++) {
            long before = kubelet.registrations(RESOURCE);
            kubelet.restart();
            kubelet.awaitRegistrations(RESOURCE, before + 1, WAIT);
        }
        long before = kubelet.registrations(RESOURCE);
        // The socket file may be between two lives (served again after the last restart): delete the one there is.
        Awaitility.await("the plugin's socket deleted").atMost(WAIT).ignoreExceptions().until(() -> {
            Files.delete(served.socket());
            return true;
        });
        kubelet.awaitRegistrations(RESOURCE, before + 1, WAIT);
        Awaitility.await("the plugin's list on its new socket").atMost(WAIT).ignoreExceptions()
                .until(() -> kubelet.plugin(RESOURCE).latest(WAIT).getDevicesCount() == 1);
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
