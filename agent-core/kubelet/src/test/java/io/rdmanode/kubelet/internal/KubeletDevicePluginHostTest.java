// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.ResourceFigures;
import io.rdmanode.kubelet.ServedResource;
import io.rdmanode.kubelet.internal.v1beta1.AllocateRequest;
import io.rdmanode.kubelet.internal.v1beta1.AllocateResponse;
import io.rdmanode.kubelet.internal.v1beta1.ListAndWatchResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeletDevicePluginHostTest {

    /** How long an awaited event may take: generous, so a loaded CI machine is no failure (each returns at once). */
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final String RESOURCE = "rdma/test_a";

    @TempDir
    Path dir;
    private FakeKubelet kubelet;
    private KubeletDevicePluginHost host;

    @BeforeEach
    void startHost() throws IOException {
        kubelet = new FakeKubelet(dir).start();
        // Safety-net resync far away: re-registration below must come from the file watch.
        host = new KubeletDevicePluginHost(new HostSettings(dir, dir.resolve("kubelet.sock"), 2000, 2000, 60_000, 1));
    }

    @AfterEach
    void stop() {
        host.close();
        kubelet.close();
    }

    static List<Device> devices(int n, boolean healthy) {
        List<Device> list = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            list.add(new Device("test_a-" + i, healthy, List.of(0L, 1L)));
        }
        return list;
    }

    @Test
    void registersAndSendsTheFullListAtOnce() throws IOException {
        ServedResource served = host.serve(new TestPlugin(RESOURCE, devices(3, true)));

        FakeKubelet.Registration r = kubelet.awaitRegistrations(RESOURCE, 1, WAIT);
        assertThat(r.version()).isEqualTo("v1beta1");
        assertThat(r.endpoint()).matches("rdma-node-agent\\.rdma_test_a\\.[0-9a-z]{1,8}\\.sock");     // per instance
        assertThat(served.socket()).isEqualTo(dir.resolve(r.endpoint()));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(served.socket())))
                .isEqualTo("rw-------");
        assertThat(kubelet.plugin(RESOURCE).options().getGetPreferredAllocationAvailable()).isTrue();
        ListAndWatchResponse first = kubelet.plugin(RESOURCE).latest(WAIT);
        assertThat(first.getDevicesList()).extracting(d -> d.getID()).containsExactly("test_a-0", "test_a-1", "test_a-2");
        assertThat(first.getDevices(0).getHealth()).isEqualTo("Healthy");
        assertThat(first.getDevices(0).getTopology().getNodesList()).extracting(n -> n.getID()).containsExactly(0L, 1L);
        // The plugin side marks itself registered when Register returns, a moment after kubelet recorded it.
        org.awaitility.Awaitility.await().atMost(WAIT).until(served::registered);
    }

    @Test
    void pushesTheFullListOnEveryChangeAndNothingWhenUnchanged() {
        TestPlugin plugin = new TestPlugin(RESOURCE, devices(2, true));
        ServedResource served = host.serve(plugin);
        kubelet.awaitRegistrations(RESOURCE, 1, WAIT);
        kubelet.plugin(RESOURCE).latest(WAIT);

        plugin.set(devices(2, false));
        served.devicesChanged();
        ListAndWatchResponse update = kubelet.plugin(RESOURCE)
                .awaitUpdate(u -> u.getDevices(0).getHealth().equals("Unhealthy"), WAIT);
        assertThat(update.getDevicesCount()).isEqualTo(2);

        served.devicesChanged();                    // same list: no send
        plugin.set(devices(4, false));
        served.devicesChanged();
        kubelet.plugin(RESOURCE).awaitUpdate(u -> u.getDevicesCount() == 4, WAIT);
        assertThat(kubelet.plugin(RESOURCE).updates()).hasSize(3);
        assertThat(host.figures()).singleElement().satisfies(f -> {
            assertThat(f.devicesAdvertised()).isEqualTo(4);
            assertThat(f.devicesHealthy()).isZero();
            assertThat(f.listAndWatchUpdates()).isEqualTo(3);
        });
    }

    @Test
    void allocatesOneAnswerPerContainerInRequestOrder() {
        host.serve(new TestPlugin(RESOURCE, devices(3, true)));
        kubelet.awaitRegistrations(RESOURCE, 1, WAIT);

        AllocateResponse response = kubelet.plugin(RESOURCE).allocate(List.of("test_a-2"), List.of("test_a-0", "test_a-1"));

        assertThat(response.getContainerResponsesCount()).isEqualTo(2);
        assertThat(response.getContainerResponses(0).getEnvsMap()).containsEntry("TEST_DEVICES", "test_a-2");
        assertThat(response.getContainerResponses(1).getDevicesList()).extracting(d -> d.getHostPath())
                .containsExactly("/dev/test/test_a-0", "/dev/test/test_a-1");
        assertThat(response.getContainerResponses(1).getDevices(0).getPermissions()).isEqualTo("rw");
        assertThat(host.figures().get(0).allocations()).isEqualTo(2);
    }

    @Test
    void answersPreferredAllocationWithMustIncludeFirst() {
        host.serve(new TestPlugin(RESOURCE, devices(4, true)));
        kubelet.awaitRegistrations(RESOURCE, 1, WAIT);

        var response = kubelet.plugin(RESOURCE).preferred(List.of("test_a-0", "test_a-1", "test_a-2", "test_a-3"),
                List.of("test_a-3"), 2);

        assertThat(response.getContainerResponses(0).getDeviceIDsList()).containsExactly("test_a-3", "test_a-0");
    }

    @Test
    void answersPreStartContainer() {
        host.serve(new TestPlugin(RESOURCE, devices(1, true)));
        kubelet.awaitRegistrations(RESOURCE, 1, WAIT);

        var response = kubelet.plugin(RESOURCE).stub().preStartContainer(
                io.rdmanode.kubelet.internal.v1beta1.PreStartContainerRequest.newBuilder().addDevicesIds("test_a-0")
                        .build());

        assertThat(response).isNotNull();
        assertThat(kubelet.plugin(RESOURCE).options().getPreStartRequired()).isFalse();
    }

    @Test
    void refusesBadRequestsWithDescribedStatuses() {
        TestPlugin plugin = new TestPlugin(RESOURCE, devices(2, true));
        host.serve(plugin);
        kubelet.awaitRegistrations(RESOURCE, 1, WAIT);
        FakeKubelet.PluginConnection c = kubelet.plugin(RESOURCE);

        assertThatThrownBy(() -> c.allocate(List.of("test_a-0", "test_a-9")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).contains("test_a-9").contains(RESOURCE)
                            .doesNotContain("test_a-0,");
                });
        assertThatThrownBy(() -> c.stub().allocate(AllocateRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
                        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        assertThatThrownBy(() -> c.allocate(List.of()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
                        assertThat(e.getStatus().getDescription()).contains("no device ids"));
        assertThatThrownBy(() -> c.preferred(List.of("test_a-0"), List.of(), 2))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e ->
                        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));
        plugin.failNextAllocate = new IllegalStateException("boom");
        assertThatThrownBy(() -> c.allocate(List.of("test_a-0")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
                    assertThat(e.getStatus().getDescription()).contains(RESOURCE).contains("boom");
                });
        assertThat(c.allocate(List.of("test_a-1")).getContainerResponsesCount()).isEqualTo(1);
        assertThat(host.figures().get(0).allocationFailures()).isEqualTo(4);
    }

    @Test
    void reRegistersAfterEachOfTwentyKubeletRestarts() {
        TestPlugin plugin = new TestPlugin(RESOURCE, devices(2, true));
        ServedResource served = host.serve(plugin);
        kubelet.awaitRegistrations(RESOURCE, 1, WAIT);

        for (int i = 2; i <= 21; i++) {
            kubelet.restart();
            // How fast: scripts/bench-kubelet-host (a bound here, not a figure: CI machines are loaded).
            kubelet.awaitRegistrations(RESOURCE, i, WAIT);
            assertThat(kubelet.plugin(RESOURCE).latest(WAIT).getDevicesCount()).isEqualTo(2);
        }
        assertThat(kubelet.registrations(RESOURCE)).isEqualTo(21);
        assertThat(served.socket()).exists();
        // The plugin still answers and still pushes on the newest connection.
        assertThat(kubelet.plugin(RESOURCE).allocate(List.of("test_a-1")).getContainerResponsesCount()).isEqualTo(1);
        plugin.set(devices(3, true));
        served.devicesChanged();
        kubelet.plugin(RESOURCE).awaitUpdate(u -> u.getDevicesCount() == 3, WAIT);
        // The host counts a registration once kubelet's answer is back, a moment after kubelet recorded it.
        Awaitility.await().atMost(WAIT).untilAsserted(
                () -> assertThat(host.figures().get(0).registrations()).isEqualTo(21));
    }

    /**
     * The launcher's barrier before the bundles not needed to serve kubelet (issue 27): settled once each pool
     * served has had its first attempt, whether kubelet accepted it or was not there.
     */
    @Test
    void firstRegistrationsSettleOnceEveryServedPoolHasTriedOnce() throws InterruptedException {
        assertThat(host.awaitFirstRegistrations(Duration.ZERO)).isTrue();          // nothing served: nothing to wait for
        ServedResource served = host.serve(new TestPlugin(RESOURCE, devices(1, true)));

        assertThat(host.awaitFirstRegistrations(WAIT)).isTrue();
        assertThat(served.registered()).isTrue();

        kubelet.stop();
        ServedResource absent = host.serve(new TestPlugin("rdma/test_b", devices(1, true)));
        assertThat(host.awaitFirstRegistrations(WAIT)).isTrue();
        assertThat(absent.registered()).isFalse();
    }

    @Test
    void registersWhenKubeletComesUpLater() {
        kubelet.stop();
        ServedResource served = host.serve(new TestPlugin(RESOURCE, devices(1, true)));
        assertThat(served.registered()).isFalse();
        assertThat(host.unregistered()).containsKey(RESOURCE);

        kubelet.start();

        kubelet.awaitRegistrations(RESOURCE, 1, WAIT);   // well inside the 60 s resync: the file watch
        assertThat(kubelet.plugin(RESOURCE).latest(WAIT).getDevicesCount()).isEqualTo(1);
    }

    @Test
    void waitsForTheDevicePluginsDirectoryThatKubeletCreates() throws IOException {
        Path later = dir.resolve("later");
        try (KubeletDevicePluginHost waiting = new KubeletDevicePluginHost(new HostSettings(later,
                later.resolve("kubelet.sock"), 2000, 2000, 500, 1))) {
            ServedResource served = waiting.serve(new TestPlugin(RESOURCE, devices(1, true)));
            assertThat(later).doesNotExist();
            assertThat(served.registered()).isFalse();

            Files.createDirectories(later);
            try (FakeKubelet late = new FakeKubelet(later).start()) {
                late.awaitRegistrations(RESOURCE, 1, WAIT);
                assertThat(late.plugin(RESOURCE).latest(WAIT).getDevicesCount()).isEqualTo(1);
                assertThat(served.socket()).exists();
            }
        }
    }

    @Test
    void servesAgainWhenItsSocketIsDeleted() throws IOException {
        ServedResource served = host.serve(new TestPlugin(RESOURCE, devices(1, true)));
        kubelet.awaitRegistrations(RESOURCE, 1, WAIT);

        Files.delete(served.socket());

        kubelet.awaitRegistrations(RESOURCE, 2, WAIT);   // well inside the 60 s resync: the file watch
        assertThat(served.socket()).exists();
        assertThat(kubelet.plugin(RESOURCE).allocate(List.of("test_a-0")).getContainerResponsesCount()).isEqualTo(1);
    }

    @Test
    void closingEndsTheStreamDeletesTheSocketAndFreesTheName() {
        ServedResource served = host.serve(new TestPlugin(RESOURCE, devices(1, true)));
        kubelet.awaitRegistrations(RESOURCE, 1, WAIT);
        FakeKubelet.PluginConnection c = kubelet.plugin(RESOURCE);
        c.latest(WAIT);

        long start = System.nanoTime();
        served.close();
        served.close();                                       // idempotent

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        assertThat(served.socket()).doesNotExist();
        assertThat(served.registered()).isFalse();
        org.awaitility.Awaitility.await().atMost(WAIT).until(() -> c.streamEnd() != null);
        assertThat(c.streamEnd().isOk()).isTrue();
        assertThat(host.figures()).isEmpty();
        host.serve(new TestPlugin(RESOURCE, devices(1, true)));   // the name is free again
        kubelet.awaitRegistrations(RESOURCE, 2, WAIT);
    }

    @Test
    void hostCloseStopsEveryServerWithinItsBound() {
        List<ServedResource> served = new ArrayList<>();
        for (String r : List.of("rdma/a", "rdma/b", "rdma/c")) {
            served.add(host.serve(new TestPlugin(r, List.of(new Device("x", true, List.of())))));
            kubelet.awaitRegistrations(r, 1, WAIT);
        }

        long start = System.nanoTime();
        host.close();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(served).allSatisfy(s -> assertThat(s.socket()).doesNotExist());
        org.awaitility.Awaitility.await().atMost(WAIT).until(() -> kubelet.plugin("rdma/a").streamEnd() != null);
    }

    @Test
    void refusesInvalidAndDuplicateResourceNames() {
        host.serve(new TestPlugin(RESOURCE, devices(1, true)));

        assertThatThrownBy(() -> host.serve(new TestPlugin(RESOURCE, devices(1, true))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already served");
        assertThatThrownBy(() -> host.serve(new TestPlugin("hca_a", devices(1, true))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("<domain>/<name>");
        assertThatThrownBy(() -> host.serve(new TestPlugin("kubernetes.io/hca", devices(1, true))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reserved");
        assertThat(host.figures()).extracting(ResourceFigures::resourceName).containsExactly(RESOURCE);
    }
}
