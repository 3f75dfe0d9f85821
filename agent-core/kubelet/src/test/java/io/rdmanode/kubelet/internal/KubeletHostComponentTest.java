// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import io.rdmanode.kubelet.Device;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.lang.reflect.Proxy;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.util.converter.Converters;

class KubeletHostComponentTest {

    @TempDir
    Path dir;

    /** Services the component registers itself (its metrics collector), captured by a minimal bundle context. */
    private final List<Object> registered = new java.util.concurrent.CopyOnWriteArrayList<>();


    private static KubeletHostComponent.Config config(Map<String, Object> properties) {
        return Converters.standardConverter().convert(properties).to(KubeletHostComponent.Config.class);
    }

    private KubeletHostComponent component(Map<String, Object> properties) throws Exception {
        return new KubeletHostComponent(config(properties), properties, context());
    }

    private BundleContext context() {
        return (BundleContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {BundleContext.class}, (proxy, method, args) -> {
                    if (method.getName().equals("registerService")) {
                        registered.add(args[1]);
                        return Proxy.newProxyInstance(getClass().getClassLoader(),
                                new Class<?>[] {ServiceRegistration.class}, (p, m, a) -> {
                                    if (m.getName().equals("unregister")) {
                                        registered.remove(args[1]);
                                    }
                                    return null;
                                });
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void aPluginDirectoryThatIsAFileStopsAStartingAgentThroughTheLaunchersGate() throws Exception {
        java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("not-a-dir"), "");
        List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        io.rdmanode.agent.StartupGate gate = line -> lines.add(line);
        Map<String, Object> properties = Map.of("pluginDir", file.toString(), "registration", "classic");

        try {
            new KubeletHostComponent(config(properties), properties, context(), gate, null);
        } catch (Exception e) {
            // the activation may fail as well; what matters is that the gate heard it first
        }

        assertThat(lines).singleElement().asString().contains(file.toString(), "not a directory", "kubelet.pluginDir");
    }

    @Test
    void exportsPerResourceFiguresThroughTheCollectorComponent() throws Exception {
        KubeletHostComponent host = component(Map.of("pluginDir", dir.toString(), "registration", "classic"));
        try (FakeKubelet kubelet = new FakeKubelet(dir).start()) {
            host.serve(new TestPlugin("rdma/a", List.of(new Device("a-0", true, List.of()),
                    new Device("a-1", false, List.of()))));
            kubelet.awaitRegistrations("rdma/a", 1, Duration.ofSeconds(5));
            MultiCollector collector = new DevicePluginCollector(host);
            // kubelet sees the Register call before the plugin has counted its answer.
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> host.figures().get(0).registrations() == 1);

            Map<String, MetricSnapshot> byName = new java.util.HashMap<>();
            collector.collect().forEach(m -> byName.put(m.getMetadata().getName(), m));

            assertThat(byName).containsKeys("rdma_agent_deviceplugin_registrations",
                    "rdma_agent_deviceplugin_kubelet_restarts", "rdma_agent_deviceplugin_allocations",
                    "rdma_agent_deviceplugin_allocate_duration_seconds", "rdma_agent_deviceplugin_devices",
                    "rdma_agent_deviceplugin_registered", "rdma_agent_deviceplugin_calls_refused");
            var registrations = (io.prometheus.metrics.model.snapshots.CounterSnapshot) byName.get(
                    "rdma_agent_deviceplugin_registrations");
            assertThat(registrations.getDataPoints()).extracting(p -> p.getLabels().get("result") + "=" + p.getValue())
                    .containsExactlyInAnyOrder("ok=1.0", "failed=0.0");
            var devices = (io.prometheus.metrics.model.snapshots.GaugeSnapshot) byName.get(
                    "rdma_agent_deviceplugin_devices");
            assertThat(devices.getDataPoints()).extracting(p -> p.getLabels().get("health") + "=" + p.getValue())
                    .containsExactlyInAnyOrder("healthy=1.0", "unhealthy=1.0");
        } finally {
            host.stop();
        }
        assertThat(registered).as("the host service is withdrawn on deactivation").isEmpty();
    }

    @Test
    void waitsWhileKubeletIsAbsentIsReadyWhenRegisteredAndFailsWhenRegistrationFails() throws Exception {
        KubeletHostComponent host = component(Map.of("pluginDir", dir.toString(), "resyncInterval", 200L,
                "registration", "classic"));
        try {
            assertThat(host.kind()).isEqualTo(HealthCheck.Kind.READY);
            host.serve(new TestPlugin("rdma/a", List.of(new Device("a-0", true, List.of()))));
            HealthStatus waiting = host.check();
            assertThat(waiting.ok()).isFalse();
            assertThat(waiting.waiting()).isTrue();
            assertThat(waiting.message()).contains("waiting for kubelet").contains("rdma/a");

            // Something listens on kubelet.sock but it is no kubelet: registration fails, not ready.
            Files.writeString(dir.resolve("kubelet.sock"), "");
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !host.check().waiting());
            assertThat(host.check().ok()).isFalse();
            assertThat(host.check().message()).contains("rdma/a").contains("register with");
            Files.delete(dir.resolve("kubelet.sock"));

            try (FakeKubelet kubelet = new FakeKubelet(dir).start()) {
                kubelet.awaitRegistrations("rdma/a", 1, Duration.ofSeconds(5));
                Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> host.check().ok());
                assertThat(host.check().message()).contains("1 resource(s) registered");
                @SuppressWarnings("unchecked")
                Map<String, Object> status = (Map<String, Object>) host.status();
                assertThat(status).containsEntry("kubeletSocketPresent", true);
                assertThat(status.get("resources").toString()).contains("registered=true", "devices=1");
            }
        } finally {
            host.stop();
        }
    }

    @Test
    void usesKubeletsDefaultDirectoryAndSocketName() {
        KubeletHostComponent.Config defaults = Converters.standardConverter().convert(Map.of())
                .to(KubeletHostComponent.Config.class);

        assertThat(defaults.pluginDir()).isEqualTo("/var/lib/kubelet/device-plugins");
        assertThat(defaults.kubeletSocket()).isEqualTo("kubelet.sock");
        assertThat(defaults.registration()).isEqualTo("auto");
        assertThat(defaults.pluginsRegistryDir()).isEqualTo("/var/lib/kubelet/plugins_registry");
        assertThat(defaults.podResourcesSocket()).isEqualTo("/var/lib/kubelet/pod-resources/kubelet.sock");
        assertThat(defaults.podResourcesTimeout()).isEqualTo(1000);
        assertThat(KubeletHostComponent.podResources(defaults)).isEqualTo(new PodResourcesSettings(
                Path.of("/var/lib/kubelet/pod-resources/kubelet.sock"),
                Path.of("/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"), 1000, 64 << 20));
    }

    /**
     * What running pods hold comes from the pod-resources socket the configuration names; a new socket applies
     * in place, and {@code /status} shows the source that answered last.
     */
    @Test
    void answersWhatPodsHoldFromTheConfiguredSocketAndShowsTheSourceInStatus() throws Exception {
        Path socket = dir.resolve("pr.sock");
        Map<String, Object> properties = Map.of("pluginDir", dir.toString(), "registration", "classic",
                "podResourcesSocket", socket.toString());
        KubeletHostComponent host = component(properties);
        try (FakeKubelet kubelet = new FakeKubelet(dir).start().servePodResources(socket)) {
            assertThat(host.running().source()).isEqualTo(io.rdmanode.kubelet.PodHoldings.Source.POD_RESOURCES_API);
            @SuppressWarnings("unchecked")
            Map<String, Object> podResources = (Map<String, Object>) ((Map<String, Object>) host.status())
                    .get("podResources");
            assertThat(podResources).containsEntry("socket", socket.toString());
            assertThat(podResources.get("last").toString()).contains("source=POD_RESOURCES_API");

            Path moved = dir.resolve("moved.sock");
            Map<String, Object> next = Map.of("pluginDir", dir.toString(), "registration", "classic",
                    "podResourcesSocket", moved.toString(), "podResourcesTimeout", 500L);
            host.modified(config(next), next);
            // Nothing serves there and this kubelet never wrote a checkpoint: both reasons, the new socket named.
            org.assertj.core.api.Assertions.assertThatThrownBy(host::running)
                    .isInstanceOf(io.rdmanode.kubelet.PodDevicesException.class)
                    .hasMessageContaining("pod-resources socket " + moved + ": absent; kubelet checkpoint "
                            + dir.resolve("kubelet_internal_checkpoint") + ": absent");
        } finally {
            host.stop();
        }
    }

    /** Issue 8 item 18: a kubelet that refuses connections makes /readyz say so in one line, not 4 KB of Netty. */
    @Test
    void notReadyTextIsOneLineWithTheCauseWhenKubeletRefusesConnections() throws Exception {
        KubeletHostComponent host = component(Map.of("pluginDir", dir.toString(), "resyncInterval", 200L,
                "registration", "classic"));
        try (var dead = java.nio.channels.ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
            dead.bind(java.net.UnixDomainSocketAddress.of(dir.resolve("kubelet.sock")));
            dead.close();                                   // the file stays; connecting is refused
            host.serve(new TestPlugin("rdma/a", List.of(new Device("a-0", true, List.of()))));

            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !host.check().ok());
            String text = host.check().message();
            assertThat(text).contains("rdma/a").containsIgnoringCase("connection refused").doesNotContain("\n")
                    .doesNotContain("\tat ").doesNotContain("Exception:");
            assertThat(text.length()).isLessThan(400);
        } finally {
            host.stop();
        }
    }

    /**
     * Issue 9 item 4: timeouts and the resync interval apply in place, so a save that changes them closes no
     * socket and registers nothing again; moving the sockets restarts the component.
     */
    @Test
    void tuningAppliesInPlaceAndOnlyMovingTheSocketsRestarts() throws Exception {
        Map<String, Object> first = Map.of("pluginDir", dir.toString(), "registration", "classic");
        KubeletHostComponent host = component(first);
        Object hostService = registered.stream().filter(s -> s instanceof io.rdmanode.kubelet.DevicePluginHost)
                .findFirst().orElseThrow();
        try (FakeKubelet kubelet = new FakeKubelet(dir).start()) {
            host.serve(new TestPlugin("rdma/a", List.of(new Device("a-0", true, List.of()))));
            kubelet.awaitRegistrations("rdma/a", 1, Duration.ofSeconds(5));
            Path socket = host.servers().get(0).socket();
            var identity = SocketIdentity.of(socket);
            var connection = kubelet.plugin("rdma/a");

            Map<String, Object> tuned = Map.of("pluginDir", dir.toString(), "registration", "classic",
                    "registrationTimeout", 7000L, "shutdownTimeout", 1000L, "resyncInterval", 150L);
            host.modified(config(tuned), tuned);

            assertThat(host.tuning().registrationTimeout()).isEqualTo(7000);
            assertThat(host.tuning().resyncInterval()).isEqualTo(150);
            // Several resyncs at the new interval later, still the same socket, stream and registration.
            Awaitility.await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(5))
                    .until(() -> kubelet.registrations("rdma/a") == 1);
            assertThat(SocketIdentity.of(socket)).isEqualTo(identity);
            assertThat(connection.streamEnd()).isNull();
            assertThat(registered).contains(hostService);

            // Moving the directory restarts the host: the service is withdrawn (the plugin components stop
            // serving) and a new host is offered, serving in the new directory.
            Path elsewhere = java.nio.file.Files.createDirectories(dir.resolve("elsewhere"));
            Map<String, Object> elsewhereConfig = Map.of("pluginDir", elsewhere.toString(), "registration", "classic");
            host.modified(config(elsewhereConfig), elsewhereConfig);
            assertThat(registered).doesNotContain(hostService)
                    .anySatisfy(s -> assertThat(s).isInstanceOf(io.rdmanode.kubelet.DevicePluginHost.class));
            assertThat(socket).doesNotExist();
            try (FakeKubelet moved = new FakeKubelet(elsewhere).start()) {
                host.serve(new TestPlugin("rdma/a", List.of(new Device("a-0", true, List.of()))));
                moved.awaitRegistrations("rdma/a", 1, Duration.ofSeconds(5));
            }
        } finally {
            host.stop();
        }
    }
}
