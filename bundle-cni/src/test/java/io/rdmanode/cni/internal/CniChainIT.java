// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import static io.rdmanode.cni.internal.Netns.exec;
import static io.rdmanode.cni.internal.Netns.ip;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmanode.cni.PodAttachment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A real CNI chain driven the way a container runtime drives it: env + stdin, exec of the plugin binaries:
 * Debian's macvlan first, then the shipped rdma executable the agent installed, which talks to the agent
 * over its Unix socket. Real network namespaces (unique names); the RDMA kernel is the fake (no RDMA NIC here).
 */
class CniChainIT {

    private static final Path MACVLAN = Path.of("/usr/lib/cni/macvlan");
    private static final ObjectMapper JSON = new ObjectMapper();
    private final String ns = Netns.unique("rdt-cni-");
    private final String ns2 = ns + "b";
    private final String master = "rdtm" + (ProcessHandle.current().pid() % 100000);
    private TestAgent agent;

    @BeforeEach
    void setUp() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(MACVLAN), "needs containernetworking-plugins");
        Assumptions.assumeTrue(ip("netns", "add", ns) == 0, "needs root and iproute2");
        ip("netns", "add", ns2);
        if (ip("link", "add", master, "type", "dummy") != 0) {
            ip("link", "add", master, "type", "veth", "peer", "name", master + "p");
        }
        ip("link", "set", master, "up");
        agent = new TestAgent().start();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (agent != null) {
            agent.close();
        }
        ip("link", "del", master);
        ip("netns", "del", ns);
        ip("netns", "del", ns2);
    }

    private Map<String, String> env(String command, String containerId, String netns) {
        Map<String, String> e = new HashMap<>();
        e.put("CNI_COMMAND", command);
        e.put("CNI_PATH", "/usr/lib/cni:" + agent.binDir());
        if (containerId != null) {
            e.put("CNI_CONTAINERID", containerId);
            e.put("CNI_IFNAME", "net1");
            e.put("CNI_ARGS", "IgnoreUnknown=1;K8S_POD_NAMESPACE=team-a;K8S_POD_NAME=trainer-" + containerId
                    + ";K8S_POD_INFRA_CONTAINER_ID=" + containerId);
        }
        if (netns != null) {
            e.put("CNI_NETNS", netns);
        }
        return e;
    }

    private String macvlanConf() {
        return "{\"cniVersion\":\"1.0.0\",\"name\":\"rdmanet\",\"type\":\"macvlan\",\"master\":\"" + master
                + "\",\"mode\":\"bridge\"}";
    }

    private static String rdmaConf(String deviceId, String prevResult) {
        return "{\"cniVersion\":\"1.0.0\",\"name\":\"rdmanet\",\"type\":\"rdma\""
                + (deviceId == null ? "" : ",\"deviceID\":\"" + deviceId + "\"")
                + (prevResult == null ? "" : ",\"prevResult\":" + prevResult) + "}";
    }

    @Test
    void addCheckGcStatusDelThroughTheShippedExecutable() throws Exception {
        String netns = Netns.path(ns).toString();
        assertThat(agent.client()).isExecutable();
        assertThat(agent.component.status().toString()).contains("installed");

        Netns.Exec mac = exec(MACVLAN, env("ADD", "c1", netns), macvlanConf());
        assertThat(mac.exit()).as(mac.stdout()).isZero();
        Netns.Exec add = exec(agent.client(), env("ADD", "c1", netns), rdmaConf("0000:3b:02.1", mac.stdout()));

        assertThat(add.exit()).as(add.stdout()).isZero();
        JsonNode result = JSON.readTree(add.stdout());
        assertThat(result.path("interfaces")).isEqualTo(JSON.readTree(mac.stdout()).path("interfaces"));
        assertThat(result.path("cniVersion").asText()).isEqualTo("1.0.0");
        assertThat(agent.kernel.linksIn(Path.of(netns))).extracting(l -> l.name()).containsExactly("mlx5_7");
        assertThat(agent.component.attachments()).singleElement().satisfies(a -> {
            assertThat(a.podNamespace()).isEqualTo("team-a");
            assertThat(a.podName()).isEqualTo("trainer-c1");
            assertThat(a.rdmaDevice()).isEqualTo("mlx5_7");
        });
        assertThat(agent.component.status().toString()).contains("team-a/trainer-c1", "mlx5_7", "0000:3b:02.1");

        Netns.Exec macCheck = exec(MACVLAN, env("CHECK", "c1", netns), withPrev(macvlanConf(), mac.stdout()));
        assertThat(macCheck.exit()).as(macCheck.stdout()).isZero();
        Netns.Exec check = exec(agent.client(), env("CHECK", "c1", netns), rdmaConf("0000:3b:02.1", add.stdout()));
        assertThat(check.exit()).as(check.stdout()).isZero();
        assertThat(check.stdout()).isEmpty();

        Netns.Exec status = exec(agent.client(), env("STATUS", null, null), rdmaConf(null, null).replace("1.0.0", "1.1.0"));
        assertThat(status.exit()).as(status.stdout()).isZero();
        agent.notReady = "discovery backend verbs unavailable: test";
        assertCniError(exec(agent.client(), env("STATUS", null, null), rdmaConf(null, null).replace("1.0.0", "1.1.0")), 50, "not ready");
        agent.notReady = null;

        // A second pod, then GC with only the first one valid: the second one is released.
        String netns2 = Netns.path(ns2).toString();
        assertThat(exec(agent.client(), env("ADD", "c2", netns2), rdmaConf("0000:3b:02.2", "{}")).exit()).isZero();
        assertThat(agent.kernel.inHost("mlx5_8")).isFalse();
        Netns.Exec gc = exec(agent.client(), env("GC", null, null), "{\"cniVersion\":\"1.1.0\",\"name\":\"rdmanet\","
                + "\"type\":\"rdma\",\"cni.dev/valid-attachments\":[{\"containerID\":\"c1\",\"ifname\":\"net1\"}]}");
        assertThat(gc.exit()).as(gc.stdout()).isZero();
        assertThat(agent.kernel.inHost("mlx5_8")).isTrue();
        assertThat(agent.component.attachments()).extracting(PodAttachment::containerId).containsExactly("c1");

        // DEL runs in reverse chain order; twice, as runtimes may.
        Netns.Exec del = exec(agent.client(), env("DEL", "c1", netns), rdmaConf("0000:3b:02.1", add.stdout()));
        assertThat(del.exit()).as(del.stdout()).isZero();
        assertThat(agent.kernel.inHost("mlx5_7")).isTrue();
        assertThat(agent.component.attachments()).isEmpty();
        assertThat(exec(agent.client(), env("DEL", "c1", netns), rdmaConf("0000:3b:02.1", null)).exit()).isZero();
        assertThat(exec(MACVLAN, env("DEL", "c1", netns), macvlanConf()).exit()).isZero();
        assertThat(agent.kernel.moves).isEqualTo(2);
        assertThat(agent.kernel.returns).isEqualTo(2);
        try (var files = Files.list(agent.stateDir())) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void delAfterTheNamespaceIsGoneDropsTheState() throws Exception {
        String netns = Netns.path(ns2).toString();
        assertThat(exec(agent.client(), env("ADD", "c3", netns), rdmaConf("0000:3b:02.2", "{}")).exit()).isZero();
        ip("netns", "del", ns2);

        Netns.Exec del = exec(agent.client(), env("DEL", "c3", ""), rdmaConf("0000:3b:02.2", null));

        assertThat(del.exit()).as(del.stdout()).isZero();
        assertThat(agent.kernel.inHost("mlx5_8")).isTrue();
        assertThat(agent.component.attachments()).isEmpty();
    }

    @Test
    void badInputIsAPreciseErrorAndChangesNothing() throws Exception {
        String netns = Netns.path(ns).toString();
        assertCniError(exec(agent.client(), env("ADD", "c1", netns), "{\"cniVersion\":\"1.1.0\", name"), 6, "not valid JSON");
        assertCniError(exec(agent.client(), env("ADD", "c1", netns), rdmaConf("0000:3b:02.1", "{}")
                .replace("1.0.0", "0.2.0")), 1, "incompatible CNI version 0.2.0");
        assertCniError(exec(agent.client(), env("ADD", "c1", netns), rdmaConf(null, "{}")), 7, "deviceID is missing");
        assertCniError(exec(agent.client(), env("ADD", "c1", netns), rdmaConf("3b:02.1", "{}")), 7, "not a PCI address");
        assertCniError(exec(agent.client(), env("ADD", "c1", netns), rdmaConf("0000:5e:00.7", "{}")), 100,
                "0000:5e:00.7");
        assertCniError(exec(agent.client(), env("ADD", "c1", netns), rdmaConf("0000:3b:00.0", "{}")), 100,
                "exactly one");
        assertCniError(exec(agent.client(), env("ADD", "c1", "/var/run/netns/" + ns + "-none"),
                rdmaConf("0000:3b:02.1", "{}")), 3, "does not exist");
        // A container ID too long for the state's file names: ADD refuses it up front, DEL succeeds (nothing can be
        // recorded under it); DEL failed with error 5 "File name too long", which a runtime retries for ever.
        String longId = "a".repeat(250);
        assertCniError(exec(agent.client(), env("ADD", longId, netns), rdmaConf("0000:3b:02.1", "{}")), 4,
                "at most 240");
        assertThat(exec(agent.client(), env("DEL", longId, netns), rdmaConf("0000:3b:02.1", "{}")).exit()).isZero();
        assertCniError(exec(agent.client(), env("ADD", "c1", "/proc/1/ns/mnt"), rdmaConf("0000:3b:02.1", "{}")), 3,
                "/proc/1/ns/mnt is not a network namespace");
        assertCniError(exec(agent.client(), env("ADD", "c1", "/etc/hostname"), rdmaConf("0000:3b:02.1", "{}")), 3,
                "/etc/hostname is not a network namespace");
        // The host's namespace (the agent's own, this test's) is no container's; a /proc/self path names whichever
        // process reads it (the executable's runtime, or the agent).
        assertCniError(exec(agent.client(), env("ADD", "c1", "/proc/self/ns/net"), rdmaConf("0000:3b:02.1", "{}")),
                4, "names the namespace of whichever process reads it");
        assertCniError(exec(agent.client(), env("ADD", "c1", "/proc/" + ProcessHandle.current().pid() + "/ns/net"),
                rdmaConf("0000:3b:02.1", "{}")), 4, "is the agent's own network namespace");
        assertCniError(exec(agent.client(), env("ADD", "c1", "/proc/thread-self/ns/net"),
                rdmaConf("0000:3b:02.1", "{}")), 4, "names the namespace of whichever process reads it");
        Map<String, String> noId = env("ADD", "c1", netns);
        noId.remove("CNI_CONTAINERID");
        assertCniError(exec(agent.client(), noId, rdmaConf("0000:3b:02.1", "{}")), 4, "CNI_CONTAINERID");
        assertCniError(exec(agent.client(), env("GC", null, null), rdmaConf(null, null)), 1,
                "1.1.0 or later");
        agent.kernel.mode = io.rdmanode.netlink.RdmaNetnsMode.SHARED;
        assertCniError(exec(agent.client(), env("ADD", "c1", netns), rdmaConf("0000:3b:02.1", "{}")), 101,
                "netns_mode=0");
        assertCniError(exec(agent.client(), env("STATUS", null, null), rdmaConf(null, null).replace("1.0.0",
                "1.1.0")), 50, "netns_mode=0");
        agent.kernel.mode = io.rdmanode.netlink.RdmaNetnsMode.EXCLUSIVE;
        agent.kernel.failMoveWith = io.rdmanode.netlink.NetlinkException.EOPNOTSUPP;
        Netns.Exec unsupported = exec(agent.client(), env("ADD", "c1", netns), rdmaConf("0000:3b:02.1", "{}"));
        assertCniError(unsupported, 102, "EOPNOTSUPP");
        assertThat(unsupported.stdout()).contains("cannot move RDMA devices between network namespaces");

        assertThat(agent.kernel.inHost("mlx5_7")).isTrue();
        assertThat(agent.kernel.moves).isZero();
        try (var files = Files.list(agent.stateDir())) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void versionAndAgentDown() throws Exception {
        Netns.Exec v = exec(agent.client(), env("VERSION", null, null), "{\"cniVersion\":\"1.1.0\"}");
        assertThat(v.exit()).isZero();
        assertThat(JSON.readTree(v.stdout()).path("supportedVersions").toString()).contains("1.0.0", "1.1.0");

        agent.stop();
        Netns.Exec down = exec(agent.client(), env("ADD", "c1", Netns.path(ns).toString()),
                rdmaConf("0000:3b:02.1", "{}"));
        assertCniError(down, 11, "rdma-node-agent is down");
        assertThat(down.stdout()).contains(agent.root.resolve("cni.sock").toString());
    }

    @Test
    void socketIsPrivateAndTheClientIsUpdatedOnlyWhenItDiffers() throws Exception {
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(agent.root.resolve("cni.sock")))).isEqualTo("rw-------");
        var before = Files.getLastModifiedTime(agent.client());
        agent.stop();
        agent.start();
        assertThat(Files.getLastModifiedTime(agent.client())).isEqualTo(before);
        assertThat(agent.component.status().toString()).contains("up to date");
        Files.write(agent.client(), new byte[] {1, 2, 3});
        agent.stop();
        agent.start();
        assertThat(agent.component.status().toString()).contains("replaced unknown");
        assertThat(ClientInstaller.installedVersion(agent.client())).isEqualTo(System.getProperty("cni.client.version",
                ClientInstaller.installedVersion(agent.client())));
    }

    private static String withPrev(String conf, String prev) {
        return conf.substring(0, conf.length() - 1) + ",\"prevResult\":" + prev + "}";
    }

    /**
     * A pod whose VF the DRA driver prepared (issue 24): no device plugin, so no deviceID in the configuration; the
     * CNI takes the pod's prepared VF by K8S_POD_UID and moves its RDMA device into the pod, no NRI hook needed; a
     * second attachment of that pod finds no unattached prepared VF; a pod with none prepared gets the missing
     * deviceID error, which names the DRA way too.
     */
    @Test
    void aPodsVfPreparedThroughDraIsFoundByItsUidWithoutADeviceId() throws Exception {
        agent.component.preparedPodDevices = List.of(uid -> uid.equals("uid-dra-1") ? List.of("0000:3b:02.2")
                : List.of());
        String netns = Netns.path(ns).toString();
        Map<String, String> add = env("ADD", "c7", netns);
        add.put("CNI_ARGS", add.get("CNI_ARGS") + ";K8S_POD_UID=uid-dra-1");

        Netns.Exec ok = exec(agent.client(), add, rdmaConf(null, "{}"));

        assertThat(ok.exit()).as(ok.stdout()).isZero();
        assertThat(agent.kernel.linksIn(Path.of(netns))).extracting(l -> l.name()).containsExactly("mlx5_8");
        assertThat(agent.component.attachments()).singleElement()
                .satisfies(a -> assertThat(a.pciAddress()).isEqualTo("0000:3b:02.2"));

        Map<String, String> again = env("ADD", "c8", Netns.path(ns2).toString());
        again.put("CNI_ARGS", again.get("CNI_ARGS") + ";K8S_POD_UID=uid-dra-1");
        assertCniError(exec(agent.client(), again, rdmaConf(null, "{}")), 104, "is attached already");
        Map<String, String> other = env("ADD", "c9", Netns.path(ns2).toString());
        other.put("CNI_ARGS", other.get("CNI_ARGS") + ";K8S_POD_UID=uid-none");
        assertCniError(exec(agent.client(), other, rdmaConf(null, "{}")), 7, "prepared by the DRA driver");

        assertThat(exec(agent.client(), env("DEL", "c7", netns), rdmaConf(null, null)).exit()).isZero();
        assertThat(agent.kernel.inHost("mlx5_8")).isTrue();
    }

    private static void assertCniError(Netns.Exec e, int code, String text) throws Exception {
        assertThat(e.exit()).as(e.stdout()).isEqualTo(1);
        JsonNode err = JSON.readTree(e.stdout());
        assertThat(err.path("code").asInt()).as(e.stdout()).isEqualTo(code);
        assertThat(err.path("msg").asText()).contains(text);
        assertThat(err.path("cniVersion").asText()).isNotEmpty();
    }
}
