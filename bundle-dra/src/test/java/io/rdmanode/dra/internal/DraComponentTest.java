// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import io.rdmanode.dra.internal.v1.NodePrepareResourceResponse;
import io.rdmanode.kubelet.testing.UnixSockets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.osgi.util.converter.Converters;

/**
 * The component as SCR runs it (outside a framework): recorded host, real sockets, the kubelet double, fabric8's
 * mock API server reached through a kubeconfig file, a component restart in the middle.
 */
@EnableKubernetesMockClient(crud = true)
class DraComponentTest {

    private static final String DRIVER = DraSettings.DEFAULT_DRIVER;

    KubernetesClient client;

    private Path root;
    private RecordedHostDiscovery discovery;
    private UnixSockets.Servers servers;
    private KubeletDouble kubelet;
    private Map<String, Object> properties;

    @BeforeEach
    void start() throws Exception {
        root = Files.createTempDirectory(Path.of("/tmp"), "drac-");
        discovery = RecordedHostDiscovery.unpack("cx5-roce-sriov", root.resolve("host"));
        servers = new UnixSockets.Servers();
        Path kubeconfig = root.resolve("kubeconfig");
        Files.writeString(kubeconfig, """
                apiVersion: v1
                kind: Config
                clusters: [{name: mock, cluster: {server: "%s", insecure-skip-tls-verify: true}}]
                users: [{name: agent, user: {token: test}}]
                contexts: [{name: mock, context: {cluster: mock, user: agent}}]
                current-context: mock
                """.formatted(client.getConfiguration().getMasterUrl()));
        properties = new HashMap<>(Map.of("enabled", true, "nodeName", "node-1",
                "pluginsDir", root.resolve("plugins").toString(), "registryDir", root.resolve("reg").toString(),
                "cdiDir", root.resolve("cdi").toString(), "stateDir", root.resolve("state").toString(),
                "sysfsRoot", root.resolve("host/sys").toString(), "kubeconfig", kubeconfig.toString()));
        Files.createDirectories(root.resolve("reg"));
        kubelet = new KubeletDouble(root.resolve("reg"));
    }

    @AfterEach
    void stop() throws Exception {
        kubelet.close();
        servers.stop();
        TestFiles.deleteTree(root);
    }

    private DraComponent component(Map<String, Object> props) throws Exception {
        return new DraComponent(Converters.standardConverter().convert(props).to(DraComponent.Settings.class),
                servers, discovery, null);
    }

    private static double counter(MetricSnapshots all, String name, String result) {
        return all.stream().filter(m -> m.getMetadata().getName().equals(name)).findFirst().orElseThrow()
                .getDataPoints().stream().filter(p -> result.equals(p.getLabels().get("result")))
                .mapToDouble(p -> ((CounterSnapshot.CounterDataPointSnapshot) p).getValue()).sum();
    }

    private static double gauge(MetricSnapshots all, String name) {
        return ((GaugeSnapshot) all.stream().filter(m -> m.getMetadata().getName().equals(name)).findFirst()
                .orElseThrow()).getDataPoints().get(0).getValue();
    }

    @Test
    void disabledServesNothing() throws Exception {
        properties.put("enabled", false);
        DraComponent c = component(properties);
        assertThat(c.status()).isEqualTo(Map.of("enabled", false));
        assertThat(root.resolve("reg")).isEmptyDirectory();
        assertThat(root.resolve("plugins")).doesNotExist();
        c.stop();
    }

    @Test
    void registersPublishesPreparesAcrossARestartAndUnprepares() throws Exception {
        DraComponent c = component(properties);
        await().atMost(Duration.ofSeconds(10)).until(() -> kubelet.registered(DRIVER).isPresent());
        await().atMost(Duration.ofSeconds(10)).until(() -> !client.resources(ResourceSlice.class).list().getItems()
                .isEmpty());
        ResourceSlice slice = client.resources(ResourceSlice.class).list().getItems().get(0);
        assertThat(slice.getSpec().getPool().getName()).isEqualTo("node-1");
        assertThat(slice.getSpec().getDevices()).extracting(d -> d.getName()).contains("pci-0000-3b-00-2");

        client.resource(new ResourceClaimBuilder()
                .withMetadata(new ObjectMetaBuilder().withNamespace("ns").withName("pod-nic").build())
                .withNewStatus().withNewAllocation().withNewDevices()
                .withResults(new DeviceRequestAllocationResultBuilder().withRequest("nic").withDriver(DRIVER)
                        .withPool("node-1").withDevice("pci-0000-3b-00-2").build())
                .endDevices().endAllocation().endStatus().build()).create();
        String uid = client.resources(ResourceClaim.class).inNamespace("ns").withName("pod-nic").get().getMetadata()
                .getUid();

        NodePrepareResourceResponse prepared = kubelet.prepare(DRIVER, KubeletDouble.claim("ns", "pod-nic", uid))
                .getClaimsOrThrow(uid);
        assertThat(prepared.getError()).isEmpty();
        assertThat(prepared.getDevices(0).getCdiDeviceIdsList())
                .containsExactly(DRIVER + "/rdma=" + uid + "-pci-0000-3b-00-2");
        assertThat(root.resolve("cdi/" + DRIVER + "-rdma_" + uid + ".json")).exists();
        @SuppressWarnings("unchecked")
        Map<String, Object> status = (Map<String, Object>) c.status();
        assertThat(status).containsEntry("enabled", true);
        assertThat((List<?>) status.get("preparedClaims")).hasSize(1);
        assertThat(status.get("registration")).asString().contains("registered=true");

        MetricSnapshots metrics = new DraCollector(c).collect();
        assertThat(counter(metrics, "rdma_agent_dra_claims_prepared", "ok")).isEqualTo(1);
        assertThat(counter(metrics, "rdma_agent_dra_claims_prepared", "refused")).isZero();
        HistogramSnapshot latency = (HistogramSnapshot) metrics.stream()
                .filter(m -> m.getMetadata().getName().equals("rdma_agent_dra_prepare_duration_seconds")).findFirst()
                .orElseThrow();
        assertThat(latency.getDataPoints().get(0).getCount()).isPositive();   // the double's endpoint check counts too
        assertThat(gauge(metrics, "rdma_agent_dra_claims")).isEqualTo(1);
        assertThat(gauge(metrics, "rdma_agent_dra_pool_generation")).isPositive();

        // The agent restarts: the claim is deleted meanwhile (pod gone), kubelet re-registers and unprepares.
        c.stop();
        client.resources(ResourceClaim.class).inNamespace("ns").withName("pod-nic").delete();
        int before = kubelet.history().size();
        DraComponent again = component(properties);
        await().atMost(Duration.ofSeconds(10)).until(() -> kubelet.history().size() > before
                && kubelet.registered(DRIVER).isPresent());
        assertThat(kubelet.prepare(DRIVER, KubeletDouble.claim("ns", "pod-nic", uid)).getClaimsOrThrow(uid))
                .isEqualTo(prepared);
        assertThat(kubelet.unprepare(DRIVER, KubeletDouble.claim("ns", "pod-nic", uid)).getClaimsOrThrow(uid)
                .getError()).isEmpty();
        assertThat(root.resolve("cdi/" + DRIVER + "-rdma_" + uid + ".json")).doesNotExist();
        again.stop();
        assertThat(root.resolve("reg")).isEmptyDirectory();
    }

    /**
     * {@code dra.pools} as the config bridge hands it over (pools.<i>.*): nothing can be told before the
     * device-plugin layer is there to apply the selectors; then each pool's slices, {@code /status} and the
     * generation gauge per pool, and a claim whose result names the other pool is refused. vfs-b's selectors also
     * take VF 0 of ens1f0, which vfs-a (first) has: {@code /status} says so, and a claim naming it in vfs-b is refused.
     */
    @Test
    void twoConfiguredPoolsPublishTheirOwnSlicesAndAClaimFromTheWrongPoolIsRefused() throws Exception {
        properties.put("pools.0.name", "vfs-a");
        properties.put("pools.0.selectors.pfNames", new String[] {"ens1f0#0-7"});
        properties.put("pools.1.name", "vfs-b");
        properties.put("pools.1.selectors.pfNames", new String[] {"ens2f0#0-7", "ens1f0#0"});
        DraComponent c = new DraComponent(Converters.standardConverter().convert(properties)
                .to(DraComponent.Settings.class), properties, servers, discovery, null);
        try {
            c.bindLayer(io.rdmanode.deviceplugin.testing.DevicePluginTesting.layer(
                    io.rdmanode.deviceplugin.LayerSettings.DEFAULT));
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(client.resources(ResourceSlice.class)
                    .list().getItems()).extracting(s -> s.getSpec().getPool().getName())
                    .containsExactlyInAnyOrder("vfs-a", "vfs-b"));
            await().atMost(Duration.ofSeconds(10)).until(() -> c.sliceGenerations().values().stream()
                    .allMatch(g -> g == 1L));
            @SuppressWarnings("unchecked")
            Map<String, Object> slices = (Map<String, Object>) ((Map<String, Object>) c.status()).get("resourceSlices");
            assertThat(slices.get("pools")).asString().contains("vfs-a={generation=1, slices=1}",
                    "vfs-b={generation=1, slices=1, alsoSelectedByAnEarlierPool=[pci-0000-3b-00-2]}");
            assertThat(client.resources(ResourceSlice.class).list().getItems()).allSatisfy(s -> assertThat(
                    s.getSpec().getDevices()).hasSize(8));
            GaugeSnapshot generations = (GaugeSnapshot) new DraCollector(c).collect().stream()
                    .filter(m -> m.getMetadata().getName().equals("rdma_agent_dra_pool_generation")).findFirst()
                    .orElseThrow();
            assertThat(generations.getDataPoints()).extracting(p -> p.getLabels().get("pool"))
                    .containsExactly("vfs-a", "vfs-b");

            client.resource(new ResourceClaimBuilder()
                    .withMetadata(new ObjectMetaBuilder().withNamespace("ns").withName("wrong-pool").build())
                    .withNewStatus().withNewAllocation().withNewDevices()
                    .withResults(new DeviceRequestAllocationResultBuilder().withRequest("nic").withDriver(DRIVER)
                            .withPool("vfs-b").withDevice("pci-0000-3b-00-2").build())
                    .endDevices().endAllocation().endStatus().build()).create();
            String uid = client.resources(ResourceClaim.class).inNamespace("ns").withName("wrong-pool").get()
                    .getMetadata().getUid();
            await().atMost(Duration.ofSeconds(10)).until(() -> kubelet.registered(DRIVER).isPresent());
            assertThat(kubelet.prepare(DRIVER, KubeletDouble.claim("ns", "wrong-pool", uid)).getClaimsOrThrow(uid)
                    .getError()).contains("allocated from pool vfs-b", "in pool vfs-a");
            assertThat(root.resolve("cdi/" + DRIVER + "-rdma_" + uid + ".json")).doesNotExist();
        } finally {
            c.stop();
        }
    }
}
