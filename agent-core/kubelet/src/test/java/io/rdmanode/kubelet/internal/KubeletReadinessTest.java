// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.health.HealthStatus;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.ServedResource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readiness means registered (issue 27): the host's {@code kubelet} check through real sockets, with kubelet
 * doubles for kubelet.sock and for the plugin watcher.
 */
class KubeletReadinessTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir
    Path dir;
    private KubeletDevicePluginHost host;

    @AfterEach
    void stop() {
        if (host != null) {
            host.close();
        }
    }

    private KubeletDevicePluginHost host(Path plugins, HostSettings.Registration mode, Path registry, long deadline)
            throws IOException {
        host = new KubeletDevicePluginHost(new HostSettings(plugins, plugins.resolve("kubelet.sock"), 2000, 2000,
                200, 1, mode, registry, deadline));
        return host;
    }

    private static TestPlugin plugin(String resource, int devices) {
        return new TestPlugin(resource, KubeletDevicePluginHostTest.devices(devices, true));
    }

    @Test
    void autoFallsBackToKubeletSockWhenNoKubeletWatchesAnExistingPluginsRegistry() throws IOException {
        Path registry = Files.createDirectories(dir.resolve("plugins_registry"));   // created, watched by none
        Path plugins = Files.createDirectories(dir.resolve("dp"));
        try (FakeKubelet kubelet = new FakeKubelet(plugins).start()) {
            host(plugins, HostSettings.Registration.AUTO, registry, 400);
            ServedResource a = host.serve(plugin("rdma/a", 2));
            ServedResource b = host.serve(plugin("rdma/b", 1));

            HealthStatus probing = KubeletReadiness.of(host);
            assertThat(probing.ok()).isFalse();
            assertThat(probing.waiting()).isTrue();
            assertThat(probing.message()).contains("waiting for kubelet's plugin watcher to call GetInfo", "rdma/a");

            kubelet.awaitRegistrations("rdma/a", 1, WAIT);
            kubelet.awaitRegistrations("rdma/b", 1, WAIT);
            Awaitility.await().atMost(WAIT).until(() -> KubeletReadiness.of(host).ok());
            assertThat(KubeletReadiness.of(host).message()).contains("2 resource(s) registered",
                    "auto → classic: no GetInfo within 400ms");
            assertThat(host.status()).containsEntry("registration", "auto → classic: no GetInfo within 400ms");
            assertThat(a.socket().getParent()).isEqualTo(plugins);
            assertThat(b.socket()).exists();
            try (Stream<Path> left = Files.list(registry)) {
                assertThat(left).as("the watcher sockets are gone").isEmpty();
            }
            assertThat(kubelet.plugin("rdma/a").latest(WAIT).getDevicesCount()).isEqualTo(2);
        }
    }

    @Test
    void autoKeepsThePluginWatcherWhenKubeletCallsGetInfo() throws IOException {
        Path registry = Files.createDirectories(dir.resolve("plugins_registry"));
        Path plugins = Files.createDirectories(dir.resolve("dp"));
        try (FakePluginWatcher watcher = new FakePluginWatcher(registry)) {
            host(plugins, HostSettings.Registration.AUTO, registry, 3000);
            ServedResource a = host.serve(plugin("rdma/a", 1));

            watcher.awaitRegistrations("rdma/a", 1, WAIT);
            Awaitility.await().atMost(WAIT).until(() -> KubeletReadiness.of(host).ok());
            assertThat(host.status().get("registration").toString()).startsWith("auto → watcher: kubelet called GetInfo");
            assertThat(a.socket().getParent()).isEqualTo(registry);
        }
    }

    @Test
    void isNotReadyWhileKubeletSockIsAbsentAndSaysSo() throws IOException {
        Path plugins = Files.createDirectories(dir.resolve("dp"));
        host(plugins, HostSettings.Registration.CLASSIC, dir.resolve("none"), 3000);
        host.serve(plugin("rdma/a", 1));

        HealthStatus status = KubeletReadiness.of(host);

        assertThat(status.ok()).isFalse();
        assertThat(status.waiting()).isTrue();
        assertThat(status.message()).startsWith("waiting for kubelet: " + plugins.resolve("kubelet.sock") + " absent")
                .contains("rdma/a");
    }

    @Test
    void isNotReadyAndNamesThePoolKubeletRefuses() throws IOException {
        Path plugins = Files.createDirectories(dir.resolve("dp"));
        try (FakeKubelet kubelet = new FakeKubelet(plugins).start()) {
            kubelet.refuse("rdma/b", "resource rdma/b is claimed by another plugin");
            host(plugins, HostSettings.Registration.CLASSIC, dir.resolve("none"), 3000);
            host.serve(plugin("rdma/a", 1));
            host.serve(plugin("rdma/b", 1));
            kubelet.awaitRegistrations("rdma/a", 1, WAIT);

            Awaitility.await().atMost(WAIT).until(() -> KubeletReadiness.of(host).message().contains("rdma/b"));
            HealthStatus status = KubeletReadiness.of(host);

            assertThat(status.ok()).isFalse();
            assertThat(status.waiting()).as("a refusal is for the operator to fix").isFalse();
            assertThat(status.message()).startsWith("not registered with kubelet: rdma/b: ")
                    .contains("claimed by another plugin").doesNotContain("rdma/a");
        }
    }

    @Test
    void isNotReadyWhileKubeletHoldsNoListAndWatchStream() throws IOException {
        Path plugins = Files.createDirectories(dir.resolve("dp"));
        try (FakeKubelet kubelet = new FakeKubelet(plugins).start()) {
            host(plugins, HostSettings.Registration.CLASSIC, dir.resolve("none"), 3000);
            host.serve(plugin("rdma/a", 1));
            Awaitility.await().atMost(WAIT).until(() -> KubeletReadiness.of(host).ok());

            // The host registers again when its stream ends (the newest instance does, for pre-1.35 kubelets);
            // this kubelet then accepts the registration but opens no stream.
            kubelet.withholdStream("rdma/a");
            kubelet.dropStream("rdma/a");

            Awaitility.await().atMost(WAIT).until(() -> !KubeletReadiness.of(host).ok());
            assertThat(KubeletReadiness.of(host).message())
                    .isEqualTo("registered, but kubelet holds no ListAndWatch stream of [rdma/a]");
        }
    }

    @Test
    void aPoolWithNoMatchingDeviceSaysSoAndDoesNotHoldReadinessBack() throws IOException {
        Path plugins = Files.createDirectories(dir.resolve("dp"));
        try (FakeKubelet kubelet = new FakeKubelet(plugins).start()) {
            host(plugins, HostSettings.Registration.CLASSIC, dir.resolve("none"), 3000);
            host.serve(plugin("rdma/a", 1));
            host.serve(new TestPlugin("rdma/none", List.of(new Device("none-0", false, List.of()))));
            host.serve(new TestPlugin("rdma/empty", List.of()));

            Awaitility.await().atMost(WAIT).until(() -> KubeletReadiness.of(host).ok());

            assertThat(KubeletReadiness.of(host).message()).startsWith("3 resource(s) registered with kubelet")
                    .contains("no healthy device in [rdma/empty, rdma/none]");
        }
    }
}
