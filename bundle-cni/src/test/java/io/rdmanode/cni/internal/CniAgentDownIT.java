// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import static io.rdmanode.cni.internal.Netns.ip;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The chain Debian's {@code bridge} (with {@code host-local} IPAM) then {@code rdma}, driven as a runtime does
 * (libcni: DEL in reverse order, stopping at the first failure), with the agent stopped. Real plugins, real
 * network namespaces, the shipped executable as the agent installed it; the RDMA kernel is the fake.
 */
class CniAgentDownIT {

    private static final Path PLUGINS = Path.of("/usr/lib/cni");
    private static final ObjectMapper JSON = new ObjectMapper();
    private final String ns = Netns.unique("rdt-down-");
    private final String bridge = "rdtb" + (ProcessHandle.current().pid() % 100000);
    private final String subnet = "10.213." + ThreadLocalRandom.current().nextInt(1, 250) + ".0/24";
    private TestAgent agent;
    private ChainRuntime runtime;

    @BeforeEach
    void setUp() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(PLUGINS.resolve("bridge")), "needs containernetworking-plugins");
        Assumptions.assumeTrue(ip("netns", "add", ns) == 0, "needs root and iproute2");
        agent = new TestAgent().start();
        ObjectNode bridgePlugin = JSON.createObjectNode().put("type", "bridge").put("bridge", bridge);
        bridgePlugin.putObject("ipam").put("type", "host-local").put("subnet", subnet)
                .put("dataDir", agent.root.resolve("ipam").toString());
        ObjectNode rdmaPlugin = JSON.createObjectNode().put("type", "rdma").put("deviceID", "0000:3b:02.1");
        runtime = new ChainRuntime("1.0.0", "rdmanet", List.of(bridgePlugin, rdmaPlugin),
                List.of(PLUGINS, agent.binDir()));
    }

    @AfterEach
    void tearDown() throws Exception {
        if (agent != null) {
            agent.close();
        }
        ip("netns", "del", ns);
        ip("link", "del", bridge);
    }

    @Test
    void delOfAnAttachmentTheAgentNeverRecordedSucceedsAndTheChainCleansUp() throws Exception {
        String netns = Netns.path(ns).toString();
        agent.stop();

        // The pod starts while the agent is down: bridge adds its veth and IP, rdma fails (try again later).
        ChainRuntime.Outcome add = runtime.add("c1", "eth0", netns);
        assertThat(add.failure()).hasValueSatisfying(f -> {
            assertThat(f.type()).isEqualTo("rdma");
            assertThat(f.exec().stdout()).contains("\"code\": 11", "rdma-node-agent is down");
        });
        assertThat(addressesIn(ns)).contains(subnet.substring(0, subnet.lastIndexOf('.')));
        assertThat(bridgePorts()).isNotEmpty();

        // The runtime tears the sandbox down: DEL of the whole chain, in reverse order.
        ChainRuntime.Outcome del = runtime.del("c1", "eth0", netns);

        assertThat(del.steps()).extracting(ChainRuntime.Step::type).containsExactly("rdma", "bridge");
        assertThat(del.ok()).as(del.toString()).isTrue();
        assertThat(del.steps().get(0).exec().stdout()).isEmpty();
        assertThat(ip("netns", "del", ns)).isZero();
        assertNothingLeft();
        assertThat(agent.kernel.inHost("mlx5_7")).isTrue();
    }

    @Test
    void delOfARecordedAttachmentIsTryAgainLaterAndTheAgentFinishesItAtStart() throws Exception {
        String netns = Netns.path(ns).toString();
        assertThat(runtime.add("c2", "eth0", netns).ok()).isTrue();
        assertThat(agent.kernel.linksIn(Path.of(netns))).extracting(l -> l.name()).containsExactly("mlx5_7");
        agent.stop();

        ChainRuntime.Outcome del = runtime.del("c2", "eth0", netns);

        // libcni stops at the failing rdma DEL: bridge's veth stays until a DEL succeeds.
        assertThat(del.steps()).extracting(ChainRuntime.Step::type).containsExactly("rdma");
        JsonNode error = JSON.readTree(del.steps().get(0).exec().stdout());
        assertThat(error.path("code").asInt()).isEqualTo(11);
        assertThat(error.path("msg").asText()).contains("rdma-node-agent is unreachable",
                agent.root.resolve("cni.sock").toString(), "rdmanet:c2:eth0", "will finish this DEL", "when it starts");
        assertThat(agent.stateDir().resolve("rdmanet:c2:eth0.del")).exists();
        assertThat(bridgePorts()).isNotEmpty();

        agent.start();

        assertThat(agent.kernel.inHost("mlx5_7")).isTrue();
        assertThat(agent.component.attachments()).isEmpty();
        assertThat(agent.component.status().toString()).contains("repairedAtStart=1",
                "clientStateDir=" + agent.stateDir());
        assertThat(reconciled("del_while_down")).isEqualTo(1.0);
        try (Stream<Path> files = Files.list(agent.stateDir())) {
            assertThat(files).isEmpty();
        }

        // The runtime's retry: every plugin's DEL succeeds now, and the netns goes.
        ChainRuntime.Outcome retry = runtime.del("c2", "eth0", netns);
        assertThat(retry.ok()).as(retry.toString()).isTrue();
        assertThat(ip("netns", "del", ns)).isZero();
        assertNothingLeft();
        assertThat(agent.kernel.returns).isEqualTo(1);
    }

    @Test
    void aDelRequestedWhileDownIsFinishedAtStartAlsoWhenTheRuntimeGaveUpAndTheNamespaceIsGone() throws Exception {
        String netns = Netns.path(ns).toString();
        assertThat(runtime.add("c5", "eth0", netns).ok()).isTrue();
        agent.stop();
        assertThat(runtime.del("c5", "eth0", netns).failure()).isPresent();
        assertThat(ip("netns", "del", ns)).isZero();

        agent.start();

        assertThat(agent.kernel.inHost("mlx5_7")).isTrue();
        assertThat(agent.component.attachments()).isEmpty();
        assertThat(reconciled("del_while_down")).isEqualTo(1.0);
        assertThat(reconciled("netns_gone")).isZero();
        try (Stream<Path> files = Files.list(agent.stateDir())) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void checkAndAddWithTheAgentDownStayTryAgainLater() throws Exception {
        String netns = Netns.path(ns).toString();
        assertThat(runtime.add("c3", "eth0", netns).ok()).isTrue();
        agent.stop();

        ChainRuntime.Outcome add = runtime.add("c4", "eth1", netns);
        assertThat(add.failure().orElseThrow().exec().stdout()).contains("\"code\": 11", "rdma-node-agent is down");
        Netns.Exec check = Netns.exec(agent.client(), java.util.Map.of("CNI_COMMAND", "CHECK", "CNI_CONTAINERID", "c3",
                "CNI_IFNAME", "eth0", "CNI_NETNS", netns, "CNI_PATH", agent.binDir().toString()),
                "{\"cniVersion\":\"1.0.0\",\"name\":\"rdmanet\",\"type\":\"rdma\",\"prevResult\":{}}");
        assertThat(check.exit()).isEqualTo(1);
        assertThat(check.stdout()).contains("\"code\": 11", "rdma-node-agent is down");
        try (Stream<Path> tombstones = Files.list(agent.stateDir()).filter(f -> f.toString().endsWith(".del"))) {
            assertThat(tombstones).isEmpty();
        }
        agent.start();
        assertThat(runtime.del("c4", "eth1", netns).ok()).isTrue();
        assertThat(runtime.del("c3", "eth0", netns).ok()).isTrue();
        assertThat(agent.kernel.inHost("mlx5_7")).isTrue();
    }

    private double reconciled(String action) {
        for (MetricSnapshot s : new CniCollector(agent.component).collect()) {
            if (s.getMetadata().getName().equals("rdma_agent_cni_reconciled")) {
                return ((CounterSnapshot) s).getDataPoints().stream()
                        .filter(p -> action.equals(p.getLabels().get("action")))
                        .mapToDouble(CounterSnapshot.CounterDataPointSnapshot::getValue).sum();
            }
        }
        return 0;
    }

    /** No IP reserved by host-local, no veth on the bridge, no namespace. */
    private void assertNothingLeft() throws Exception {
        Path ipam = agent.root.resolve("ipam").resolve("rdmanet");
        if (Files.isDirectory(ipam)) {
            try (Stream<Path> files = Files.list(ipam)) {
                assertThat(files.map(f -> f.getFileName().toString())).noneMatch(n -> n.startsWith("10.213."));
            }
        }
        assertThat(bridgePorts()).isEmpty();
        assertThat(Netns.path(ns)).doesNotExist();
    }

    private List<String> bridgePorts() throws IOException, InterruptedException {
        return output("ip", "-o", "link", "show", "master", bridge).lines().toList();
    }

    private static String addressesIn(String namespace) throws IOException, InterruptedException {
        return output("ip", "-n", namespace, "-o", "addr", "show");
    }

    private static String output(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }
}
