// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.agent.RdmaDeviceChooser;
import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.deviceplugin.testing.DevicePluginTesting;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import io.rdmanode.freeflow.internal.router.FakeDeviceRouters;
import io.rdmanode.freeflow.internal.router.Router;
import io.rdmanode.freeflow.testclient.FfClient;
import io.rdmanode.freeflow.testclient.FfClient.Cq;
import io.rdmanode.freeflow.testclient.FfClient.Qp;
import io.rdmanode.health.HealthCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.util.converter.Converters;

/**
 * {@code freeflow.deviceSelectors}: the router's RDMA device chosen by the device-plugin layer's own chooser
 * ({@link DevicePluginTesting#deviceChooser}, the real one, on the recorded ConnectX-5 host), driven the way SCR
 * drives the component: constructor, the dynamic chooser's bind and unbind, {@code activated}, {@code modified}, {@code stop}.
 * The routers are made on fake devices (no RDMA device on a build host). A hot swap of the layer's bundle is, to this
 * component, the chooser unbound and another bound: the running router, its socket and its clients' objects stay.
 */
class DeviceSelectionTest {
    static final int ACCESS_ALL = 1 | 2 | 4;

    @TempDir
    static Path hostDir;
    static RdmaDiscovery discovery;
    static DevicePluginLayer layer;

    Path dir;
    Path shm;
    Map<String, Object> props;
    FakeDeviceRouters routers;
    List<String> gate;
    FreeflowComponent component;

    @BeforeAll
    static void unpack() {
        discovery = RecordedHostDiscovery.unpack("cx5-roce-sriov", hostDir);
        layer = DevicePluginTesting.layer(new LayerSettings(DevicePaths.DEFAULT, List.of()));
    }

    @AfterAll
    static void closeLayer() {
        DevicePluginTesting.close(layer);
    }

    @BeforeEach
    void given_a_router_configured_with_selectors() throws IOException {
        Path base = Files.isDirectory(Path.of("/dev/shm")) ? Path.of("/dev/shm") : Path.of("/tmp");
        dir = Files.createTempDirectory(base, "ffd");
        shm = Files.createDirectory(dir.resolve("shm"));
        props = new HashMap<>();
        props.put("socketDir", dir.toString());
        props.put("routerName", "ffrouter");
        props.put("shmDir", shm.toString());
        props.put("transport", "verbs");
        props.put("deviceSelectors.ifNames", new String[] {"ens2f0"});
        routers = new FakeDeviceRouters();
        gate = new ArrayList<>();
    }

    @AfterEach
    void close() throws IOException {
        if (component != null) {
            component.stop();
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    FreeflowComponent.Config config() {
        return Converters.standardConverter().convert(props).to(FreeflowComponent.Config.class);
    }

    /** As SCR activates it: the constructor, the chooser's bind when one is registered, then activated(). */
    FreeflowComponent activate(RdmaDeviceChooser chooser) throws IOException {
        component = new FreeflowComponent(config(), line -> gate.add(line), null, routers);
        if (chooser != null) {
            component.bindChooser(chooser);
        }
        component.activated();
        return component;
    }

    static RdmaDeviceChooser layerChooser() {
        return DevicePluginTesting.deviceChooser(layer, discovery);
    }

    /** What the layer itself picks for {@code ifNames}: one of the recorded host's mlx5 devices. */
    static String chosenFor(String ifName) {
        return layerChooser().choose(Map.of("ifNames", List.of(ifName)));
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> status() {
        return (Map<String, Object>) component.status();
    }

    @SuppressWarnings("unchecked")
    List<Map<String, Object>> tenants() {
        return (List<Map<String, Object>>) status().get("tenants");
    }

    @Test
    void the_router_starts_on_the_hca_the_layer_chooses_by_the_selectors() throws IOException {
        activate(layerChooser());

        String ens2f0 = chosenFor("ens2f0");
        assertThat(ens2f0).startsWith("mlx5_").isNotEqualTo(chosenFor("ens1f0"));
        assertThat(routers.devices()).containsExactly(ens2f0);
        assertThat(status()).containsEntry("transport", "verbs").containsEntry("device", ens2f0)
                .containsEntry("deviceChosenBy", "deviceSelectors")
                .containsEntry("deviceSelectors", Map.of("ifNames", List.of("ens2f0")));
        assertThat(component.kind()).isEqualTo(HealthCheck.Kind.ALIVE);
        assertThat(component.check().ok()).isTrue();
        assertThat(gate).isEmpty();
    }

    @Test
    void without_the_layer_the_router_waits_says_why_and_starts_when_the_layer_comes() throws IOException {
        activate(null);

        assertThat(dir.resolve("ffrouter")).as("no socket without a device").doesNotExist();
        assertThat(routers.made).isEmpty();
        assertThat(component.kind()).as("not ready; a restart would not help").isEqualTo(HealthCheck.Kind.READY);
        assertThat(component.check().ok()).isFalse();
        assertThat(component.check().message()).startsWith("no router: waiting for the device-plugin layer");
        assertThat(status()).containsEntry("router", "waiting").containsEntry("transport", "verbs")
                .containsEntry("deviceSelectors", Map.of("ifNames", List.of("ens2f0")));
        assertThat(component.router()).isNull();
        assertThat(gate).as("the layer may come later: not a start-up failure").isEmpty();

        component.bindChooser(layerChooser());

        assertThat(routers.devices()).containsExactly(chosenFor("ens2f0"));
        assertThat(dir.resolve("ffrouter")).exists();
        assertThat(component.kind()).isEqualTo(HealthCheck.Kind.ALIVE);
        assertThat(component.check().ok()).isTrue();
        assertThat(new FfClient(dir.resolve("ffrouter"), shm, 7).allocPd()).isPositive();
    }

    @Test
    void the_layer_going_and_another_coming_leaves_the_running_router_and_every_client_object() throws Exception {
        RdmaDeviceChooser first = layerChooser();
        activate(first);
        Path socket = dir.resolve("ffrouter");
        Object inode = Files.getAttribute(socket, "unix:ino");
        Router running = component.router();
        FfClient c = new FfClient(socket, shm, 7);
        int pd = c.allocPd();
        Cq cq = c.createCq(16);
        Qp qp = c.createQp(pd, cq, cq, 32, 4);
        c.regMr(pd, 1 << 16, ACCESS_ALL);
        Map<String, Object> before = tenants().get(0);
        assertThat(before).containsEntry("qps", 1).containsEntry("mrs", 1).containsEntry("cqs", 1);

        // The layer's bundle stops (update or refresh): its chooser goes. A tuning edit meanwhile applies in place.
        component.unbindChooser(first);
        props.put("maxQpsPerTenant", 8);
        component.modified(config());
        // Its new revision registers a new chooser, on a new layer: greedy, it binds; nothing restarts.
        DevicePluginLayer swapped = DevicePluginTesting.layer(new LayerSettings(DevicePaths.DEFAULT, List.of()));
        try {
            RdmaDeviceChooser second = DevicePluginTesting.deviceChooser(swapped, discovery);
            component.bindChooser(second);
            // And a third replacing it (a greedy rebind: SCR binds the new one, then unbinds the old one).
            RdmaDeviceChooser third = layerChooser();
            component.bindChooser(third);
            component.unbindChooser(second);
        } finally {
            DevicePluginTesting.close(swapped);
        }

        assertThat(component.router()).as("the same router").isSameAs(running);
        assertThat(routers.made).as("no second router").hasSize(1);
        assertThat(Files.getAttribute(socket, "unix:ino")).as("the same socket file").isEqualTo(inode);
        assertThat(status()).containsEntry("device", chosenFor("ens2f0"));
        assertThat(tenants()).singleElement().satisfies(t -> assertThat(t).containsEntry("pid", before.get("pid"))
                .containsEntry("qps", 1).containsEntry("mrs", 1).containsEntry("cqs", 1));
        // The client's handles are still the router's: a QP on its PD and CQ, a query of its QP.
        assertThat(c.createQp(pd, cq, cq, 32, 4)).isNotNull();
        assertThat(c.queryQp(qp)).isNotNull();
        assertThat(tenants().get(0)).containsEntry("qps", 2);
    }

    @Test
    void a_router_without_selectors_never_notices_the_layer() throws Exception {
        props.remove("deviceSelectors.ifNames");
        props.put("transport", "software");
        RdmaDeviceChooser first = layerChooser();
        activate(first);
        Router running = component.router();
        FfClient c = new FfClient(dir.resolve("ffrouter"), shm, 7);
        c.regMr(c.allocPd(), 4096, ACCESS_ALL);

        component.unbindChooser(first);
        component.bindChooser(layerChooser());

        assertThat(component.router()).isSameAs(running);
        assertThat(tenants()).singleElement().satisfies(t -> assertThat(t).containsEntry("mrs", 1));
        assertThat(routers.devices()).containsExactly("");
    }

    @Test
    void selectors_that_take_nothing_leave_the_router_waiting_and_stop_a_starting_agent() throws IOException {
        props.put("deviceSelectors.ifNames", new String[] {"nosuch0"});
        activate(layerChooser());

        assertThat(routers.made).isEmpty();
        assertThat(component.kind()).isEqualTo(HealthCheck.Kind.READY);
        assertThat(component.check().message()).contains("the device selectors take no RDMA device on this host (")
                .contains("nosuch0");
        assertThat(gate).singleElement().asString()
                .startsWith("cannot choose the Freeflow router's RDMA device by freeflow.deviceSelectors {ifNames=[nosuch0]}")
                .endsWith("; change freeflow.deviceSelectors");
    }

    @Test
    void new_selectors_restart_the_router_on_the_device_they_choose() throws IOException {
        activate(layerChooser());

        props.put("deviceSelectors.ifNames", new String[] {"ens1f0"});
        component.modified(config());

        assertThat(routers.devices()).containsExactly(chosenFor("ens2f0"), chosenFor("ens1f0"));
        assertThat(status()).containsEntry("device", chosenFor("ens1f0"));
    }
}
