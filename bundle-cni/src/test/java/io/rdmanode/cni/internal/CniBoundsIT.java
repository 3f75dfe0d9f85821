// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import static io.rdmanode.cni.internal.Netns.ip;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The CNI socket's bounds, each tried the way a runtime (the shipped executable, exec'd with env and stdin) or
 * a hostile local client (raw connections to the real socket) would: idle connections by the thousand,
 * oversize requests, a hung agent, error text that must stay JSON, the socket directory's mode.
 */
class CniBoundsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final String ns = Netns.unique("rdt-bnd-");
    private TestAgent agent;
    private final List<SocketChannel> idle = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        Assumptions.assumeTrue(ip("netns", "add", ns) == 0, "needs root and iproute2");
        agent = new TestAgent();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (SocketChannel c : idle) {
            c.close();
        }
        agent.close();
        ip("netns", "del", ns);
    }

    private Map<String, String> env(String command, String containerId) {
        Map<String, String> e = new HashMap<>();
        e.put("CNI_COMMAND", command);
        e.put("CNI_PATH", agent.binDir().toString());
        e.put("CNI_CONTAINERID", containerId);
        e.put("CNI_IFNAME", "net1");
        e.put("CNI_NETNS", Netns.path(ns).toString());
        return e;
    }

    private static String rdmaConf() {
        return "{\"cniVersion\":\"1.0.0\",\"name\":\"rdmanet\",\"type\":\"rdma\",\"deviceID\":\"0000:3b:02.1\","
                + "\"prevResult\":{}}";
    }

    private List<SocketChannel> openIdle(int n) throws IOException {
        List<SocketChannel> opened = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX);
            c.connect(UnixDomainSocketAddress.of(agent.socket()));
            opened.add(c);
        }
        idle.addAll(opened);
        return opened;
    }

    @Test
    void aThousandIdleConnectionsHoldNoWorkerAnAddStillCompletesAndTheyAreCutAtTheDeadline() throws Exception {
        agent.settings = Map.of("requestTimeout", 8_000L, "maxConnections", 2_048);
        agent.start();
        List<SocketChannel> thousand = openIdle(1_000);
        Awaitility.await("1,000 connections accepted").atMost(Duration.ofSeconds(30))
                .until(() -> gauge("rdma_agent_cni_connections_open") == 1_000);
        long t0 = System.nanoTime();

        Netns.Exec add = Netns.exec(agent.client(), env("ADD", "c1"), rdmaConf());
        long addMillis = (System.nanoTime() - t0) / 1_000_000;

        assertThat(add.exit()).as(add.stdout()).isZero();
        assertThat(agent.kernel.linksIn(Netns.path(ns))).extracting(l -> l.name()).containsExactly("mlx5_7");
        assertThat(addMillis).as("ADD with 1,000 idle connections open, ms").isLessThan(8_000);
        assertThat(gauge("rdma_agent_cni_connections_open")).as("the idle ones are still open").isEqualTo(1_000);
        assertThat(Netns.exec(agent.client(), env("DEL", "c1"), rdmaConf()).exit()).isZero();

        Awaitility.await("idle connections cut at cni.requestTimeout").atMost(Duration.ofSeconds(60))
                .until(() -> counter("rdma_agent_cni_connections_timed_out", null) >= 1_000);
        assertThat(gauge("rdma_agent_cni_connections_open")).isZero();
        for (SocketChannel c : List.of(thousand.get(0), thousand.get(999))) {
            assertThat(c.read(ByteBuffer.allocate(16))).as("closed by the agent, nothing said").isEqualTo(-1);
        }
        assertThat(counter("rdma_agent_cni_connections_refused", "connection_limit")).isZero();
    }

    @Test
    void atMaxConnectionsTheOldestIdleConnectionGivesWayWithErrorEleven() throws Exception {
        agent.settings = Map.of("maxConnections", 16);
        agent.start();
        List<SocketChannel> sixteen = openIdle(16);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> gauge("rdma_agent_cni_connections_open") == 16);

        Netns.Exec version = Netns.exec(agent.client(), env("VERSION", "c1"), "{\"cniVersion\":\"1.1.0\"}");

        assertThat(version.exit()).as(version.stdout()).isZero();
        assertThat(JSON.readTree(version.stdout()).path("supportedVersions").toString()).contains("1.1.0");
        String evicted = readAll(sixteen.get(0));
        assertThat(evicted).startsWith("1\n");
        JsonNode error = JSON.readTree(evicted.substring(2));
        assertThat(error.path("code").asInt()).isEqualTo(11);
        assertThat(error.path("msg").asText()).contains("16 connections were open (cni.maxConnections)");
        assertThat(counter("rdma_agent_cni_connections_refused", "connection_limit")).isEqualTo(1);
    }

    @Test
    void requestsHeldUnfinishedHaveAByteBudgetTheLargestGivesWay() throws Exception {
        agent.start(); // 1 MiB per request, a budget of 8 MiB for unfinished ones
        List<SocketChannel> senders = openIdle(9);
        byte[] almost = ("RDMACNI1\nCNI_COMMAND=ADD\0\0" + "p".repeat(1_000_000)).getBytes(StandardCharsets.US_ASCII);
        for (SocketChannel c : senders) {
            c.write(ByteBuffer.wrap(almost)); // and never finishes: no EOF
        }
        Awaitility.await("the budget enforced").atMost(Duration.ofSeconds(30))
                .until(() -> counter("rdma_agent_cni_connections_refused", "buffer_limit") >= 1);

        Netns.Exec version = Netns.exec(agent.client(), env("VERSION", "c1"), "{\"cniVersion\":\"1.1.0\"}");
        assertThat(version.exit()).as(version.stdout()).isZero();
        // The largest unfinished one goes, the oldest of equals: the first (the ninth had not all arrived yet).
        String refused = readAll(senders.get(0));
        assertThat(refused).startsWith("1\n").contains("over its budget of 8388608 bytes");
    }

    @Test
    void anOversizeRequestIsDecodeErrorSixNamingTheLimitFromTheClientAndFromTheAgent() throws Exception {
        agent.settings = Map.of("maxRequestBytes", 65_536L);
        agent.start();
        String big = "{\"cniVersion\":\"1.0.0\",\"name\":\"rdmanet\",\"pad\":\"" + "x".repeat(100_000) + "\"}";

        // The installed executable knows the agent's limit (its limits slot) and refuses locally.
        Netns.Exec local = Netns.exec(agent.client(), env("ADD", "c1"), big);
        assertCniError(local, 6, "larger than the agent's limit of 65536 bytes (cni.maxRequestBytes)");
        assertThat(counter("rdma_agent_cni_requests_refused", "size")).as("the agent never saw it").isZero();

        // A client that thinks the limit higher (another version, an override) is refused by the agent, which
        // closes while the client is still writing: the client reads the answer after its write fails.
        Map<String, String> e = env("ADD", "c1");
        e.put("RDMA_AGENT_CNI_MAX_REQUEST_BYTES", "4194304");
        Netns.Exec remote = Netns.exec(agent.client(), e, big + " ".repeat(2_000_000));
        assertCniError(remote, 6, "larger than the agent's limit of 65536 bytes (cni.maxRequestBytes)");
        assertThat(counter("rdma_agent_cni_requests_refused", "size")).isEqualTo(1);
        assertThat(agent.kernel.moves).isZero();

        // A raw client doing the same, as the agent sees it: the answer, then the connection closed.
        SocketChannel raw = openIdle(1).get(0);
        raw.write(ByteBuffer.wrap(("RDMACNI1\nCNI_COMMAND=ADD\0\0" + "y".repeat(70_000))
                .getBytes(StandardCharsets.US_ASCII)));
        String answer = readAll(raw);
        assertThat(answer).startsWith("1\n");
        assertThat(JSON.readTree(answer.substring(2)).path("code").asInt()).isEqualTo(6);
        assertThat(counter("rdma_agent_cni_requests_refused", "size")).isEqualTo(2);

        // Just under the limit is served.
        Netns.Exec fits = Netns.exec(agent.client(), env("VERSION", "c1"), "{\"cniVersion\":\"1.1.0\",\"pad\":\""
                + "z".repeat(60_000) + "\"}");
        assertThat(fits.exit()).as(fits.stdout()).isZero();
    }

    @Test
    void theClientGivesUpOnAnAgentThatAcceptsAndNeverAnswersNamingTheSocket() throws Exception {
        agent.settings = Map.of("clientTimeout", 700L);
        agent.start();
        assertThat(ClientInstaller.slot(agent.client(), ClientInstaller.LIMITS_MARKER)).contains(
                "timeout_ms=700 max_request=1048576");
        Path hung = agent.root.resolve("hung.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(hung));
            Map<String, String> e = env("ADD", "c1");
            e.put("RDMA_AGENT_CNI_SOCKET", hung.toString());
            long t0 = System.nanoTime();

            Netns.Exec add = Netns.exec(agent.client(), e, rdmaConf()); // the backlog accepts; nobody reads

            long millis = (System.nanoTime() - t0) / 1_000_000;
            assertCniError(add, 11, "timed out after 700 ms (cni.clientTimeout) waiting for the answer of"
                    + " rdma-node-agent at " + hung);
            assertThat(millis).isBetween(650L, 20_000L);

            e.put("RDMA_AGENT_CNI_TIMEOUT_MS", "300");
            assertCniError(Netns.exec(agent.client(), e, rdmaConf()), 11, "timed out after 300 ms");
        }
    }

    @Test
    void errorTextWithQuotesNewlinesAndBadBytesStaysOneParsableJsonObject() throws Exception {
        agent.start();
        // The client's own error (agent unreachable), the socket path carrying a quote, a newline, a backslash,
        // a control character and a byte that is not UTF-8.
        Netns.Exec down = Netns.execScript(agent.client(), env("ADD", "c1"),
                "export RDMA_AGENT_CNI_SOCKET=$'" + agent.root + "/a\"b\\nc\\\\d\\x01e\\xff.sock'", rdmaConf());
        JsonNode error = assertCniError(down, 11, "rdma-node-agent is down");
        assertThat(error.path("msg").asText()).contains(agent.root + "/a\"b\nc\\d\u0001e\ufffd.sock");

        // The agent's error about such an input.
        Map<String, String> e = env("ADD", "c1\"\n{\"code\": 0}");
        JsonNode invalid = assertCniError(Netns.exec(agent.client(), e, rdmaConf()), 4, "CNI_CONTAINERID");
        assertThat(invalid.path("msg").asText()).contains("c1\"\n{\"code\": 0}");
    }

    @Test
    void theSocketDirectoryIsPrivate() throws Exception {
        Path dir = agent.root.resolve("run");
        agent.settings = Map.of("socket", dir.resolve("cni.sock").toString());
        agent.start();
        assertThat(mode(dir)).isEqualTo("rwx------");
        assertThat(mode(dir.resolve("cni.sock"))).isEqualTo("rw-------");
        agent.stop();

        // An existing directory that is the socket's own (as systemd or a hostPath volume made it) is narrowed.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        agent.start();
        assertThat(mode(dir)).isEqualTo("rwx------");
        Netns.Exec v = Netns.exec(agent.client(), env("VERSION", "c1"), "{\"cniVersion\":\"1.1.0\"}");
        assertThat(v.exit()).as(v.stdout()).isZero();
        agent.stop();

        // A shared one is left as it is.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(dir.resolve("other"), "x");
        agent.start();
        assertThat(mode(dir)).isEqualTo("rwxr-xr-x");
    }

    // ---- helpers ----

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }

    private static String readAll(SocketChannel c) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(1 << 16);
        while (c.read(b) >= 0 && b.hasRemaining()) {
            // until the agent closes
        }
        return new String(b.array(), 0, b.position(), StandardCharsets.UTF_8);
    }

    static JsonNode assertCniError(Netns.Exec e, int code, String text) throws Exception {
        assertThat(e.exit()).as(e.stdout()).isEqualTo(1);
        JsonNode err = JSON.readTree(e.stdout());
        assertThat(err.path("code").asInt()).as(e.stdout()).isEqualTo(code);
        assertThat(err.path("msg").asText()).contains(text);
        assertThat(err.path("cniVersion").asText()).isNotEmpty();
        return err;
    }

    private double gauge(String name) {
        for (MetricSnapshot s : new CniCollector(agent.component).collect()) {
            if (s.getMetadata().getName().equals(name)) {
                return ((GaugeSnapshot) s).getDataPoints().stream()
                        .mapToDouble(GaugeSnapshot.GaugeDataPointSnapshot::getValue).sum();
            }
        }
        throw new AssertionError("no " + name);
    }

    private double counter(String name, String reason) {
        for (MetricSnapshot s : new CniCollector(agent.component).collect()) {
            if (s.getMetadata().getName().equals(name)) {
                return ((CounterSnapshot) s).getDataPoints().stream()
                        .filter(p -> reason == null || reason.equals(((DataPointSnapshot) p).getLabels().get("reason")))
                        .mapToDouble(CounterSnapshot.CounterDataPointSnapshot::getValue).sum();
            }
        }
        throw new AssertionError("no " + name);
    }
}
