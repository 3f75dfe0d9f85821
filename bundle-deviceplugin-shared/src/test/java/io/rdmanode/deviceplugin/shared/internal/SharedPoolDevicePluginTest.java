// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.kubelet.internal.FakeKubelet;
import io.rdmanode.kubelet.internal.HostSettings;
import io.rdmanode.kubelet.internal.KubeletDevicePluginHost;
import io.rdmanode.kubelet.internal.v1beta1.AllocateResponse;
import io.rdmanode.kubelet.internal.v1beta1.ListAndWatchResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pool component against the real device-plugin host and the kubelet double, on a recorded host. */
class SharedPoolDevicePluginTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    @TempDir
    Path dir;
    private FixtureDiscovery discovery;
    private FakeKubelet kubelet;
    private KubeletDevicePluginHost host;
    private final SharedPoolRegistry registry = new SharedPoolRegistry();

    @BeforeEach
    void start() throws IOException {
        discovery = FixtureDiscovery.unpack("cx5-roce-sriov", dir.resolve("host"));
        Path plugins = Files.createDirectories(dir.resolve("device-plugins"));
        host = new KubeletDevicePluginHost(new HostSettings(plugins, plugins.resolve("kubelet.sock"), 2000, 2000,
                60_000, 1));
        kubelet = new FakeKubelet(plugins).start();
    }

    @AfterEach
    void stop() {
        host.close();
        kubelet.close();
    }

    private SharedPoolDevicePlugin activate(String name, Object... keyValues) {
        return new SharedPoolDevicePlugin(Pools.config(name, keyValues), discovery, host, registry);
    }

    @Test
    void registersThePoolAndAdvertisesItsIdsWithTopology() {
        activate("hca_a", "rdmaHcaMax", 3, "selectors.deviceIDs", new String[] {"1017"});

        FakeKubelet.Registration r = kubelet.awaitRegistrations("rdma/hca_a", 1, WAIT);
        ListAndWatchResponse list = kubelet.plugin("rdma/hca_a").latest(WAIT);

        assertThat(r.endpoint()).isEqualTo("rdma-node-agent.rdma_hca_a.sock");
        assertThat(list.getDevicesList()).extracting(d -> d.getID()).containsExactly("hca_a-0", "hca_a-1", "hca_a-2");
        assertThat(list.getDevicesList()).allSatisfy(d -> {
            assertThat(d.getHealth()).isEqualTo("Healthy");
            assertThat(d.getTopology().getNodesList()).extracting(n -> n.getID()).containsExactly(0L, 1L);
        });
    }

    @Test
    void allocatesTheCharacterDevicesOverTheSocketAndRefusesUnknownIds() {
        activate("hca_a", "rdmaHcaMax", 3, "selectors.ifNames", new String[] {"ens2f0"});
        kubelet.awaitRegistrations("rdma/hca_a", 1, WAIT);

        AllocateResponse response = kubelet.plugin("rdma/hca_a").allocate(List.of("hca_a-1"));

        Path ib = dir.resolve("host/dev/infiniband");
        assertThat(response.getContainerResponses(0).getDevicesList())
                .extracting(d -> d.getHostPath(), d -> d.getContainerPath(), d -> d.getPermissions())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(ib + "/uverbs20", ib + "/uverbs20", "rw"),
                        org.assertj.core.groups.Tuple.tuple(ib + "/umad20", ib + "/umad20", "rw"),
                        org.assertj.core.groups.Tuple.tuple(ib + "/issm20", ib + "/issm20", "rw"),
                        org.assertj.core.groups.Tuple.tuple(ib + "/rdma_cm", ib + "/rdma_cm", "rw"));
        assertThatThrownBy(() -> kubelet.plugin("rdma/hca_a").allocate(List.of("hca_a-1", "hca_a-7")))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).contains("'hca_a-7'").contains("rdma/hca_a");
                });
    }

    @Test
    void pushesAPortGoingDownAndUpToListAndWatch() {
        activate("pf0", "rdmaHcaMax", 2, "selectors.ifNames", new String[] {"ens1f0"});
        kubelet.awaitRegistrations("rdma/pf0", 1, WAIT);
        kubelet.plugin("rdma/pf0").awaitUpdate(u -> u.getDevices(0).getHealth().equals("Healthy"), WAIT);

        discovery.portState("mlx5_0", 1, "1: DOWN");
        discovery.rescan();
        kubelet.plugin("rdma/pf0").awaitUpdate(u -> u.getDevicesList().stream()
                .allMatch(d -> d.getHealth().equals("Unhealthy")), WAIT);
        assertThat(registry.status().toString()).contains("no usable HCA").contains("mlx5_0");

        discovery.portState("mlx5_0", 1, "4: ACTIVE");
        discovery.rescan();
        kubelet.plugin("rdma/pf0").awaitUpdate(u -> u.getDevicesList().stream()
                .allMatch(d -> d.getHealth().equals("Healthy")), WAIT);
        assertThat(kubelet.plugin("rdma/pf0").updates()).hasSize(3);
    }

    @Test
    void advertisesUnhealthyWithAReasonInExclusiveNetnsMode() {
        discovery.netnsMode(NetnsMode.Mode.EXCLUSIVE);
        discovery.rescan();
        activate("hca_a", "rdmaHcaMax", 2, "selectors.vendors", new String[] {"15b3"});
        kubelet.awaitRegistrations("rdma/hca_a", 1, WAIT);

        assertThat(kubelet.plugin("rdma/hca_a").latest(WAIT).getDevicesList())
                .allSatisfy(d -> assertThat(d.getHealth()).isEqualTo("Unhealthy"));
        assertThat(registry.status().toString()).contains("exclusive");
    }

    @Test
    void reloadsPoolsLiveAddingChangingAndRemovingTheirServers() {
        SharedPoolDevicePlugin a = activate("hca_a", "rdmaHcaMax", 2, "selectors.deviceIDs", new String[] {"1017"});
        SharedPoolDevicePlugin b = activate("hca_b", "rdmaHcaMax", 2, "selectors.ifNames", new String[] {"ens1f0v0"});
        kubelet.awaitRegistrations("rdma/hca_a", 1, WAIT);
        kubelet.awaitRegistrations("rdma/hca_b", 1, WAIT);
        assertThat(poolNames()).containsExactly("hca_a", "hca_b");

        // Changed pool: SCR deactivates the old component and activates one with the new configuration.
        FakeKubelet.PluginConnection oldA = kubelet.plugin("rdma/hca_a");
        a.stop();
        a = activate("hca_a", "rdmaHcaMax", 5, "selectors.deviceIDs", new String[] {"1017"});
        kubelet.awaitRegistrations("rdma/hca_a", 2, WAIT);
        assertThat(kubelet.plugin("rdma/hca_a").latest(WAIT).getDevicesCount()).isEqualTo(5);
        assertThat(oldA.streamEnd()).isNotNull();

        // Removed pool: its stream ends and its socket goes.
        FakeKubelet.PluginConnection oldB = kubelet.plugin("rdma/hca_b");
        Path socketB = dir.resolve("device-plugins/rdma-node-agent.rdma_hca_b.sock");
        assertThat(socketB).exists();
        b.stop();
        assertThat(socketB).doesNotExist();
        org.awaitility.Awaitility.await().atMost(WAIT).until(() -> oldB.streamEnd() != null);

        // Added pool.
        activate("hca_c", "resourceName", "shared_c", "rdmaHcaMax", 1, "selectors.vendors", new String[] {"15b3"});
        kubelet.awaitRegistrations("rdma/shared_c", 1, WAIT);
        assertThat(poolNames()).containsExactly("hca_a", "hca_c");
        assertThat(discovery.listenerCount()).isEqualTo(2);
        a.stop();
    }

    @Test
    void reRegistersItsPoolsAfterKubeletRestarts() {
        activate("hca_a", "rdmaHcaMax", 2, "selectors.deviceIDs", new String[] {"1017"});
        activate("hca_b", "rdmaHcaMax", 2, "selectors.ifNames", new String[] {"ens1f0v0"});
        kubelet.awaitRegistrations("rdma/hca_b", 1, WAIT);

        for (int i = 2; i <= 4; i++) {
            kubelet.restart();
            kubelet.awaitRegistrations("rdma/hca_a", i, Duration.ofSeconds(1));
            kubelet.awaitRegistrations("rdma/hca_b", i, Duration.ofSeconds(1));
        }
        assertThat(kubelet.plugin("rdma/hca_b").latest(WAIT).getDevicesCount()).isEqualTo(2);
    }

    @Test
    void stoppingReleasesSocketListenerAndStatus() {
        SharedPoolDevicePlugin a = activate("hca_a", "selectors.vendors", new String[] {"15b3"});
        kubelet.awaitRegistrations("rdma/hca_a", 1, WAIT);

        a.stop();

        assertThat(discovery.listenerCount()).isZero();
        assertThat(poolNames()).isEmpty();
        assertThat(host.figures()).isEmpty();
        assertThat(dir.resolve("device-plugins/rdma-node-agent.rdma_hca_a.sock")).doesNotExist();
    }

    @Test
    void refusesASecondPoolWithTheSameResourceNameAndSaysSoInReadiness() {
        activate("hca_a", "selectors.vendors", new String[] {"15b3"});

        SharedPoolDevicePlugin other = activate("other", "resourceName", "hca_a", "selectors.vendors",
                new String[] {"15b3"});

        assertThat(other.pool()).isEmpty();
        assertThat(poolNames()).containsExactly("hca_a", "other");
        assertThat(registry.status().toString()).contains("refused=resource rdma/hca_a is already served");
        assertThat(registry.check().ok()).isFalse();
        assertThat(registry.check().message()).contains("other");
        assertThat(discovery.listenerCount()).isEqualTo(1);
        other.stop();
        assertThat(registry.check().ok()).isTrue();
    }

    @Test
    void refusesAPoolWhoseResourceNameKubeletWouldReject() {
        SharedPoolDevicePlugin bad = activate("bad", "resourceName", "bad name", "selectors.vendors",
                new String[] {"15b3"});

        assertThat(bad.pool()).isEmpty();
        assertThat(registry.check().message()).contains("resourceName 'bad name'");
        assertThat(host.figures()).isEmpty();
    }

    @SuppressWarnings("unchecked")
    private List<Object> poolNames() {
        Map<String, Object> status = (Map<String, Object>) registry.status();
        return ((List<Map<String, Object>>) status.get("pools")).stream().map(p -> p.get("name")).toList();
    }
}
