// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import static io.rdmanode.cni.internal.CniBoundsIT.assertCniError;
import static io.rdmanode.cni.internal.Netns.ip;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The agent as a process of its own under the POSIX locale (LC_ALL=C: the JVM's file-name encoding is ASCII) and
 * the shipped executable under it too, given UTF-8 input: JSON and environment are UTF-8 whatever the locale;
 * a value the agent cannot use as a file name there is a precise error, not "agent down"; and its log, captured
 * from the process, keeps a hostile container ID on one escaped line.
 */
class CniPosixLocaleIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NS = Netns.unique("rdt-loc-");
    private static Path root;
    private static Process agent;

    @BeforeAll
    static void startAgent() throws Exception {
        Assumptions.assumeTrue(ip("netns", "add", NS) == 0, "needs root and iproute2");
        root = Files.createTempDirectory(Path.of("/tmp"), "rdt-loc-");
        Path ready = root.resolve("ready");
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        ProcessBuilder pb = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx64m",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=info", "-cp", System.getProperty("java.class.path"),
                CniCrashAgent.class.getName(), root.toString(), ready.toString());
        pb.environment().keySet().removeIf(k -> k.startsWith("LC_") || k.equals("LANG") || k.equals("LANGUAGE"));
        pb.environment().put("LC_ALL", "C");
        agent = pb.redirectErrorStream(true).redirectOutput(root.resolve("agent.log").toFile()).start();
        Awaitility.await("agent ready").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20))
                .until(() -> Files.exists(ready) || !agent.isAlive());
        assertThat(agent.isAlive()).as(Files.readString(root.resolve("agent.log"))).isTrue();
    }

    @AfterAll
    static void stopAgent() throws Exception {
        if (agent != null) {
            agent.destroy();
            agent.waitFor();
        }
        ip("netns", "del", NS);
        if (root != null) {
            try (Stream<Path> walk = Files.walk(root)) {
                walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static Map<String, String> env(String command, String containerId) {
        Map<String, String> e = new HashMap<>();
        e.put("LC_ALL", "C");
        e.put("CNI_COMMAND", command);
        e.put("CNI_PATH", root.resolve("bin").toString());
        e.put("CNI_CONTAINERID", containerId);
        e.put("CNI_IFNAME", "net1");
        e.put("CNI_NETNS", Netns.path(NS).toString());
        return e;
    }

    private static Path client() {
        return root.resolve("bin").resolve("rdma");
    }

    @Test
    void utf8JsonAndPodNamesRoundTripUnderThePosixLocale() throws Exception {
        String conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"rdmanet\",\"type\":\"rdma\",\"deviceID\":\"0000:3b:02.1\","
                + "\"prevResult\":{\"cniVersion\":\"1.0.0\",\"dns\":{\"domain\":\"bücher.例え.example\"}}}";
        Netns.Exec add = Netns.execScript(client(), env("ADD", "u1"),
                "export CNI_ARGS=$'K8S_POD_NAMESPACE=\\xc3\\xa9quipe;K8S_POD_NAME=tr\\xc3\\xa4nen-0'", conf);

        assertThat(add.exit()).as(add.stdout()).isZero();
        assertThat(JSON.readTree(add.stdout()).path("dns").path("domain").asText()).isEqualTo("bücher.例え.example");
        String state = new String(Files.readAllBytes(root.resolve("state").resolve("rdmanet:u1:net1.json")),
                StandardCharsets.UTF_8);
        assertThat(state).contains("\"tränen-0\"", "\"équipe\"");
        Netns.Exec del = Netns.exec(client(), env("DEL", "u1"), conf);
        assertThat(del.exit()).as(del.stdout()).isZero();
    }

    @Test
    void aValueTheAgentCannotNameAFileWithIsAPreciseErrorNotAgentDown() throws Exception {
        String conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"rdmanet\",\"type\":\"rdma\",\"deviceID\":\"0000:3b:02.2\","
                + "\"prevResult\":{}}";
        Netns.Exec add = Netns.execScript(client(), env("ADD", "u2"), "export CNI_IFNAME=$'n\\xc3\\xa9t1'", conf);
        JsonNode error = assertCniError(add, 4, "cannot be used as a file name by rdma-node-agent");
        assertThat(error.path("msg").asText()).contains("nét1", "ANSI_X3.4-1968", "LANG=C.UTF-8");

        // DEL of it must succeed (nothing can be recorded), or the runtime's chain cleanup would stop here.
        Netns.Exec del = Netns.execScript(client(), env("DEL", "u2"), "export CNI_IFNAME=$'n\\xc3\\xa9t1'", conf);
        assertThat(del.exit()).as(del.stdout()).isZero();

        // Bytes that are not UTF-8 are a decode error naming the variable.
        Netns.Exec bad = Netns.execScript(client(), env("ADD", "u3"), "export CNI_ARGS=$'K8S_POD_NAME=\\xff\\xfe'",
                conf);
        assertCniError(bad, 6, "CNI_ARGS is not valid UTF-8");
    }

    @Test
    void aNewlineInTheContainerIdCannotForgeALogLine() throws Exception {
        String conf = "{\"cniVersion\":\"1.0.0\",\"name\":\"rdmanet\",\"type\":\"rdma\",\"deviceID\":\"0000:3b:02.1\","
                + "\"prevResult\":{}}";
        Netns.Exec add = Netns.execScript(client(), env("ADD", "x"),
                "export CNI_CONTAINERID=$'c9\\n[main] INFO io.rdmanode.cni.internal.CniHandler - CNI ADD"
                        + " forged\\x1b[2K'",
                conf);
        assertCniError(add, 4, "CNI_CONTAINERID");

        Path log = root.resolve("agent.log");
        Awaitility.await("the refusal logged").atMost(Duration.ofSeconds(30))
                .until(() -> Files.readString(log, StandardCharsets.ISO_8859_1).contains("c9\\n[main]"));
        String text = Files.readString(log, StandardCharsets.ISO_8859_1);
        assertThat(text.lines().filter(l -> l.contains("forged"))).singleElement().asString()
                .contains("CNI ADD c9\\n[main] INFO io.rdmanode.cni.internal.CniHandler - CNI ADD forged\\u001b[2K")
                .contains("error 4");
        assertThat(text.lines()).noneMatch(l -> l.startsWith("[main] INFO io.rdmanode.cni.internal.CniHandler - CNI ADD"
                + " forged"));
        assertThat(text).doesNotContain("\u001b");
    }
}
