// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dist;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResultBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.rdmanode.dra.testing.DraKubeletClient;
import io.rdmanode.dra.testing.DraKubeletClient.Prepared;
import io.rdmanode.kubelet.testing.KubeletDouble;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The restart suite of issue 24 through the shipped distribution: the optional DRA bundle switched on in the
 * configuration, a ResourceClaim on fabric8's mock API server (CRUD mode) allocated to our driver for one VF of the demo host, and
 * kubelet's calls on the real DRA socket. A claim prepared by one agent survives a SIGKILL: the next agent, on the
 * same state, still holds the VF away from the SR-IOV pool that offers it, answers a repeated Prepare with the same
 * CDI IDs from its checkpoint, and unprepares it (spec gone, VF offered again); the claim can then be prepared
 * again, and an Unprepare of a claim it never saw succeeds.
 */
@EnableKubernetesMockClient(crud = true)
class DraRestartIT {

    private static final String DRIVER = DraNode.DRIVER;
    private static final String NODE = DraNode.NODE;
    /** VF 0 of ens1f0 in the demo host; the pool sriov_pf0_low offers VFs 0-3 of that PF. */
    private static final String VF = "pci-0000-3b-00-2";
    private static final String VF_PCI = "0000:3b:00.2";
    private static final String POOL = "rdma/sriov_pf0_low";
    private static final Duration WAIT = Duration.ofSeconds(60);

    KubernetesClient client;

    @Test
    void aClaimPreparedBeforeASigkillIsStillPreparedAfterAndIsUnpreparedAndPreparedAgain() throws Exception {
        try (DraNode node = new DraNode("drar", client.getConfiguration().getMasterUrl())) {
            run(node, node.writeConfig(""));
        }
    }

    private void run(DraNode node, Path config) throws Exception {
        Path home = node.home;
        Path state = node.state;
        Path draDir = node.draDir;
        Path cdi = node.cdi;
        int port = node.port;
        client.resource(new ResourceClaimBuilder()
                .withMetadata(new ObjectMetaBuilder().withNamespace("ns").withName("pod-nic").build())
                .withNewStatus().withNewAllocation().withNewDevices()
                .withResults(new DeviceRequestAllocationResultBuilder().withRequest("nic").withDriver(DRIVER)
                        .withPool(NODE).withDevice(VF).build())
                .endDevices().endAllocation().endStatus().build()).create();
        String uid = client.resources(io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim.class)
                .inNamespace("ns").withName("pod-nic").get().getMetadata().getUid();
        List<String> cdiIds = List.of(DRIVER + "/rdma=" + uid + "-" + VF);
        Path spec = cdi.resolve(DRIVER + "-rdma_" + uid + ".json");

        try (KubeletDouble kubelet = KubeletDouble.start(node.pluginDir, state.resolve("pod-resources/kubelet.sock"))) {
            AgentProcess first = AgentProcess.start(home, state, Map.of(), "--config", config.toString());
            try (first) {
                first.awaitStarted(WAIT);
                kubelet.awaitRegistrations(POOL, 1, WAIT);
                awaitOffered(kubelet, true, "before any claim");
                try (DraKubeletClient dra = DraKubeletClient.of(DraIT.awaitOneIn(draDir, first))) {
                    assertThat(dra.prepare("ns", "pod-nic", uid)).as(first.output())
                            .isEqualTo(new Prepared(cdiIds, ""));
                }
                assertThat(spec).exists();
                awaitOffered(kubelet, false, "prepared by the first agent");
                first.kill();                                        // SIGKILL: no shutdown, no unprepare
            }
            assertThat(spec).as("the CDI spec outlives the agent").exists();

            try (AgentProcess second = AgentProcess.start(home, state, Map.of(), "--config", config.toString())) {
                second.awaitStarted(WAIT);
                kubelet.awaitRegistrations(POOL, 2, WAIT);
                // Before any call: the checkpoint alone holds the VF and fills /status.
                awaitOffered(kubelet, false, "the second agent, from the checkpoint");
                assertThat(preparedClaims(port)).containsExactly("ns/pod-nic (" + uid + "): [" + VF + "]");

                try (DraKubeletClient dra = DraKubeletClient.of(DraIT.awaitOneIn(draDir, second))) {
                    // kubelet repeats Prepare after a plugin restart: the same answer.
                    assertThat(dra.prepare("ns", "pod-nic", uid)).isEqualTo(new Prepared(cdiIds, ""));
                    assertThat(dra.unprepare("ns", "pod-nic", uid)).isEmpty();
                    assertThat(spec).doesNotExist();
                    assertThat(preparedClaims(port)).isEmpty();
                    awaitOffered(kubelet, true, "after Unprepare");

                    assertThat(dra.prepare("ns", "pod-nic", uid)).isEqualTo(new Prepared(cdiIds, ""));
                    assertThat(spec).exists();
                    awaitOffered(kubelet, false, "prepared again");
                    assertThat(dra.unprepare("ns", "pod-nic", uid)).isEmpty();
                    assertThat(dra.unprepare("ns", "never-prepared", "6a4d1f0e-0000-4000-8000-000000000000"))
                            .isEmpty();
                    assertThat(spec).doesNotExist();
                    awaitOffered(kubelet, true, "after the last Unprepare");
                }
                assertThat(second.terminate(Duration.ofSeconds(30))).as(second.output()).isZero();
            }
        }
    }

    /** Waits until the last ListAndWatch list of the pool offers the VF (or leaves it out: DRA holds it). */
    private static void awaitOffered(KubeletDouble kubelet, boolean offered, String when) {
        Awaitility.await(VF_PCI + (offered ? " offered by " : " not offered by ") + POOL + " " + when)
                .atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> {
                    List<List<String>> lists = kubelet.deviceLists(POOL);
                    return !lists.isEmpty() && lists.get(lists.size() - 1).contains(VF_PCI) == offered;
                });
    }

    private static List<String> preparedClaims(int port) throws Exception {
        var claims = AgentProcess.json("http://127.0.0.1:" + port + "/status").getAsJsonObject("dra")
                .getAsJsonArray("preparedClaims");
        return StreamSupport.stream(claims.spliterator(), false).map(JsonElement::getAsString).toList();
    }
}
