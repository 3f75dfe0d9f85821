// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.rdmanode.cni.PodAttachment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CniPartsTest {

    @Test
    void wireRequestDecodes() throws Exception {
        byte[] req = "RDMACNI1\nCNI_COMMAND=ADD\0CNI_ARGS=A=1;B=2\0\0{\"x\":1}".getBytes(StandardCharsets.UTF_8);
        Map<String, String> env = new HashMap<>();
        assertThat(new String(CniServer.decode(req, env), StandardCharsets.UTF_8)).isEqualTo("{\"x\":1}");
        assertThat(env).containsEntry("CNI_COMMAND", "ADD").containsEntry("CNI_ARGS", "A=1;B=2");
        assertThat(CniServer.decode("GET / HTTP/1.1\n".getBytes(StandardCharsets.UTF_8), env)).isNull();
        assertThat(CniServer.decode("RDMACNI1\nCNI_COMMAND=ADD".getBytes(StandardCharsets.UTF_8), env)).isNull();
    }

    @Test
    void installerPatchesTheSocketAndStateDirSlotsOfTheBuiltClient(@TempDir Path dir) throws Exception {
        byte[] client = ClientInstaller.bundled();
        byte[] patched = ClientInstaller.patched(client, "/run/x/cni.sock", "/srv/agent/cni");
        assertThat(patched).hasSameSizeAs(client);
        assertThat(new String(patched, StandardCharsets.ISO_8859_1)).contains("@@RDMA_AGENT_CNI_SOCKET@@/run/x/cni.sock\0",
                "@@RDMA_AGENT_CNI_STATE_DIR@@/srv/agent/cni\0");
        assertThat(ClientInstaller.version(patched)).isNotBlank().isNotEqualTo("unknown");
        assertThatThrownBy(() -> ClientInstaller.patched(client, "/" + "x".repeat(90), "/s")).hasMessageContaining(
                "longer");
        assertThatThrownBy(() -> ClientInstaller.patched(client, "/s", "/" + "x".repeat(230))).hasMessageContaining(
                "CNI state dir");

        ClientInstaller.install(dir, "/run/x/cni.sock", "/srv/agent/cni");
        assertThat(ClientInstaller.slot(dir.resolve("rdma"), ClientInstaller.STATE_DIR_MARKER)).contains("/srv/agent/cni");
        assertThat(ClientInstaller.slot(dir.resolve("rdma"), ClientInstaller.SOCKET_MARKER)).contains("/run/x/cni.sock");
    }

    @Test
    void tombstonesAreListedByKeyAndDropped(@TempDir Path dir) throws Exception {
        AttachmentStore store = new AttachmentStore(dir);
        Files.writeString(dir.resolve("net:c1:net1.del"), "{\"requestedAt\": 1700000000, \"netns\": \"/var/run/netns/p\"}\n");
        Files.writeString(dir.resolve("net:c2:net1.del"), "not json");

        assertThat(store.tombstones()).containsExactlyInAnyOrder(
                new AttachmentStore.Tombstone("net:c1:net1", "/var/run/netns/p", Instant.ofEpochSecond(1700000000)),
                new AttachmentStore.Tombstone("net:c2:net1", "", Instant.EPOCH));
        store.deleteTombstone("net:c1:net1");
        assertThat(store.tombstones()).extracting(AttachmentStore.Tombstone::key).containsExactly("net:c2:net1");
        assertThat(store.all()).isEmpty();
    }

    @Test
    void aStoreDropsTempFilesOfWritesACrashCutButKeepsTheState(@TempDir Path dir) throws Exception {
        Attachment a = new Attachment("net", "c1", "net1", "/var/run/netns/x", "ns", "pod", "0000:3b:02.1", "mlx5_7",
                Attachment.Phase.ADDED, Instant.EPOCH);
        new AttachmentStore(dir).write(a, true);
        Files.writeString(dir.resolve("." + Attachment.key("net", "c2", "net1") + ".tmp"), "{\"format\":1,");

        AttachmentStore restarted = new AttachmentStore(dir);

        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString())).containsExactly(a.key() + ".json");
        }
        assertThat(restarted.read(a.key())).contains(a);
    }

    @Test
    void theFileBackedFakeKernelOutlivesItsProcessAndCountsDoubleMoves(@TempDir Path dir) throws Exception {
        Path pod = Files.createFile(dir.resolve("pod-netns")); // stands in for /var/run/netns/x: only its inode counts
        FakeRdmaKernel first = FakeRdmaKernel.persistent(dir.resolve("kernel"), "mlx5_7");
        first.moveToNetns("mlx5_7", pod);

        FakeRdmaKernel restarted = FakeRdmaKernel.persistent(dir.resolve("kernel"), "mlx5_7");
        assertThat(restarted.linksIn(pod)).extracting(l -> l.name()).containsExactly("mlx5_7");
        assertThatThrownBy(() -> restarted.moveToNetns("mlx5_7", pod)).hasMessageContaining("not in this network");
        restarted.returnFromNetns("mlx5_7", pod);

        assertThat(restarted.placement("mlx5_7")).isEqualTo(new FakeRdmaKernel.Placement(null, null, 1, 1, 1));
        assertThat(restarted.inHost("mlx5_7")).isTrue();
    }

    @Test
    void podArgsAndDeviceIdSources() throws Exception {
        assertThat(CniInput.cniArgs("IgnoreUnknown=1;K8S_POD_NAMESPACE=a;K8S_POD_NAME=b"))
                .containsEntry("K8S_POD_NAMESPACE", "a").containsEntry("K8S_POD_NAME", "b");
        ObjectMapper json = new ObjectMapper();
        assertThat(CniInput.deviceId(json.readTree("{\"runtimeConfig\":{\"deviceID\":\"0000:3b:02.1\"}}")))
                .isEqualTo("0000:3b:02.1");
        assertThat(CniInput.deviceId(json.readTree("{\"pciBusID\":\"0000:3b:02.2\"}"))).isEqualTo("0000:3b:02.2");
        assertThat(CniInput.deviceId(json.readTree(
                "{\"prevResult\":{\"interfaces\":[{\"name\":\"net1\",\"pciID\":\"0000:3b:02.3\"}]}}")))
                .isEqualTo("0000:3b:02.3");
    }

    @Test
    void collectorCarriesPodIdentity() {
        CniStats stats = new CniStats();
        stats.request("ADD", "ok", 2_000_000);
        stats.request("DEL", "error", 1_000_000);
        stats.reconciled("netns_gone");
        PodAttachment a = new PodAttachment("net", "c1", "net1", "/var/run/netns/x", "team-a", "trainer-0",
                "0000:3b:02.1", "mlx5_7", Instant.EPOCH);
        Map<String, MetricSnapshot> out = new HashMap<>();
        new CniCollector(stats, () -> List.of(a), () -> "0.1.0").collect()
                .forEach(s -> out.put(s.getMetadata().getName(), s));

        assertThat(out).containsOnlyKeys("rdma_agent_cni_requests", "rdma_agent_cni_request_seconds",
                "rdma_agent_cni_reconciled", "rdma_agent_cni_pod_rdma_device", "rdma_agent_cni_client_info",
                "rdma_agent_cni_connections_open", "rdma_agent_cni_connections_refused",
                "rdma_agent_cni_connections_timed_out", "rdma_agent_cni_requests_refused");
        MetricSnapshot pods = out.get("rdma_agent_cni_pod_rdma_device");
        assertThat(pods.getDataPoints().get(0).getLabels().get("pod_name")).isEqualTo("trainer-0");
        assertThat(pods.getDataPoints().get(0).getLabels().get("pod_namespace")).isEqualTo("team-a");
        assertThat(out.get("rdma_agent_cni_requests").getDataPoints()).hasSize(2);
    }
}
