// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.rdmanode.kubelet.testing.KubeletDouble;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * {@code dra.pools} through the shipped distribution: the config bridge maps the list of objects inside the driver's
 * one configuration, the component reads the pools from its properties, the demo's device-plugin layer applies their
 * selectors, and fabric8's mock API server (CRUD mode) receives each pool's slices; a live edit that removes a pool
 * deletes its slices and leaves the other's generation alone.
 */
@EnableKubernetesMockClient(crud = true)
class DraPoolsIT {

    private static final String NODE = DraNode.NODE;
    private static final Duration WAIT = Duration.ofSeconds(60);

    KubernetesClient client;

    @Test
    void eachConfiguredPoolPublishesItsSlicesAndARemovedPoolsSlicesGo() throws Exception {
        try (DraNode node = new DraNode("drap", client.getConfiguration().getMasterUrl())) {
            run(node);
        }
    }

    private void run(DraNode node) throws Exception {
        Path home = node.home;
        Path state = node.state;
        int port = node.port;
        String poolA = "    { name = vfs-a, selectors { pfNames = [\"ens1f0#0-7\"] } }\n";
        String poolB = "    { name = vfs-b, selectors { pfNames = [\"ens2f0#0-7\"] } }\n";
        Path config = node.writeConfig("  pools = [\n" + poolA + poolB + "  ]\n");

        try (KubeletDouble kubelet = KubeletDouble.start(node.pluginDir, state.resolve("pod-resources/kubelet.sock"));
             AgentProcess agent = AgentProcess.start(home, state, Map.of(), "--config", config.toString())) {
            agent.awaitStarted(WAIT);
            Awaitility.await("slices of vfs-a and vfs-b").atMost(WAIT).pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> {
                        assertThat(slices("vfs-a")).as(agent.output()).singleElement()
                                .satisfies(s -> assertThat(s.getSpec().getDevices()).hasSize(8));
                        assertThat(slices("vfs-b")).singleElement()
                                .satisfies(s -> assertThat(s.getSpec().getDevices()).hasSize(8));
                    });
            assertThat(slices("vfs-a").get(0).getSpec().getDevices()).extracting(d -> d.getName())
                    .contains("pci-0000-3b-00-2");
            assertThat(slices(NODE)).isEmpty();
            Awaitility.await("/status per pool").atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
                var pools = pools(port);
                return pools.has("vfs-b") && pools.getAsJsonObject("vfs-b").has("generation");
            });
            assertThat(pools(port).getAsJsonObject("vfs-a").get("generation").getAsLong()).isEqualTo(1);
            String metrics = AgentProcess.get("http://127.0.0.1:" + port + "/metrics").body();
            assertThat(metrics.lines().filter(l -> l.startsWith("rdma_agent_dra_pool_generation{")))
                    .as(metrics).containsExactlyInAnyOrder("rdma_agent_dra_pool_generation{pool=\"vfs-a\"} 1.0",
                            "rdma_agent_dra_pool_generation{pool=\"vfs-b\"} 1.0");

            // A live edit: vfs-b removed. The driver restarts with vfs-a only and deletes vfs-b's slices.
            node.writeConfig("  pools = [\n" + poolA + "  ]\n");
            Awaitility.await("vfs-b's slices deleted").atMost(WAIT).pollInterval(Duration.ofMillis(200))
                    .untilAsserted(() -> assertThat(slices("vfs-b")).as(agent.output()).isEmpty());
            assertThat(slices("vfs-a")).singleElement().satisfies(s -> assertThat(s.getSpec().getPool()
                    .getGeneration()).isEqualTo(1L));
            Awaitility.await("/status without vfs-b").atMost(WAIT).pollInterval(Duration.ofMillis(200))
                    .until(() -> !pools(port).has("vfs-b") && pools(port).has("vfs-a"));
            assertThat(agent.terminate(Duration.ofSeconds(30))).as(agent.output()).isZero();
        }
    }

    private List<ResourceSlice> slices(String pool) {
        return client.resources(ResourceSlice.class).list().getItems().stream()
                .filter(s -> s.getSpec().getNodeName().equals(NODE) && s.getSpec().getPool().getName().equals(pool))
                .toList();
    }

    private static com.google.gson.JsonObject pools(int port) throws Exception {
        return AgentProcess.json("http://127.0.0.1:" + port + "/status").getAsJsonObject("dra")
                .getAsJsonObject("resourceSlices").getAsJsonObject("pools");
    }
}
