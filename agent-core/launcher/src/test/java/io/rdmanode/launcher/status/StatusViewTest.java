// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher.status;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class StatusViewTest {

    @Test
    void rendersTheDemoAgentAsTheGoldenTables() throws IOException {
        assertThat(StatusView.render(fixture("demo.json"))).isEqualTo(text("demo.txt"));
    }

    @Test
    void saysAnAgentWaitingForKubeletHasStartedButIsNotReadyAndWhy() throws IOException {
        String view = StatusView.render(fixture("demo.json"));

        assertThat(view).startsWith("rdma-node-agent 0.1.0-SNAPSHOT  pid 12112  up 3s  java 17.0.21.1  NOT READY"
                + " (started; waiting for kubelet)\n")
                .containsPattern("kubelet +READY +waiting for kubelet: /run/rdma-demo/device-plugins/kubelet.sock absent");
    }

    @Test
    void showsWhatIsWrongWithATroubledAgent() throws IOException {
        String view = StatusView.render(fixture("troubled.json"));

        assertThat(view).contains("NOT READY")
                .contains("in force: /opt/rdma-node-agent/config/demo.conf revision 1 (92fdbb29c64acd29), applied at")
                .contains("edit in the file: revision 2 at 2026-11-23T10:20:00Z, rejected (the revision in force stays until"
                        + " the file is fixed):\n"
                        + "  agent.conf:31: deviceplugin.shared.pools[0].rdmaHcaMax: 0 is below the minimum 1")
                .containsPattern("kubelet +READY +kubelet refused the connection")
                .containsPattern("metrics +0\\.1\\.0\\.SNAPSHOT +RESOLVED")
                .containsPattern("MetricsEndpoint +io.rdmanode.metrics +UNSATISFIED_REFERENCE +missing reference")
                .doesNotContain("UNSATISFIED_CONFIGURATION")
                .containsPattern("sriov +rdma/sriov_rdma +yes +- +- +- +12 VFs +2 +-")
                .containsPattern("ml/trainer-0 +0000:3b:00.2 +mlx5_2 +/var/run/netns/cni-1234 +attached");
    }

    @Test
    void anEditRejectedEarlierIsNotMistakenForTheFileAsItIsNow() throws IOException {
        com.fasterxml.jackson.databind.node.ObjectNode status = (com.fasterxml.jackson.databind.node.ObjectNode)
                fixture("troubled.json");
        ((com.fasterxml.jackson.databind.node.ObjectNode) status.path("config")).put("state", "applied");

        assertThat(StatusView.render(status))
                .contains("earlier edit: revision 2 at 2026-11-23T10:20:00Z, rejected (since replaced by a valid edit):")
                .doesNotContain("edit in the file");
    }

    @Test
    void saysWhatAHeldEditWouldRemove() throws IOException {
        com.fasterxml.jackson.databind.node.ObjectNode status = (com.fasterxml.jackson.databind.node.ObjectNode)
                fixture("demo.json");
        com.fasterxml.jackson.databind.node.ObjectNode held = ((com.fasterxml.jackson.databind.node.ObjectNode)
                status.path("config")).putObject("held");
        held.put("checksum", "c0e445926cf46240").put("since", "2026-11-28T22:20:00Z").put("appliesAfterMs", 1000);
        held.putArray("removes").add("io.rdmanode.deviceplugin.shared.pools~hca_b");

        assertThat(StatusView.render(status)).contains("edit held since 2026-11-28T22:20:00Z: it removes"
                + " io.rdmanode.deviceplugin.shared.pools~hca_b, applied once the file keeps it for 1000 ms");
    }

    @Test
    void leavesOutSectionsTheAgentDoesNotHave() {
        String view = StatusView.render(new ObjectMapper().createObjectNode().put("ready", true));

        assertThat(view).startsWith("rdma-node-agent ? ").contains("READY").doesNotContain("DEVICES", "POOLS");
    }

    private static com.fasterxml.jackson.databind.JsonNode fixture(String name) throws IOException {
        try (InputStream in = StatusViewTest.class.getResourceAsStream("/fixtures/status/" + name)) {
            return new ObjectMapper().readTree(in);
        }
    }

    private static String text(String name) throws IOException {
        try (InputStream in = StatusViewTest.class.getResourceAsStream("/fixtures/status/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
