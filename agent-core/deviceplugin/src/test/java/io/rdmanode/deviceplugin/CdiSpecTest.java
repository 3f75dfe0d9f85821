// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdiSpecTest {

    @TempDir
    Path dir;

    @Test
    void writesAValidSpecOnceAndRewritesItOnlyWhenItsDevicesChange() throws Exception {
        DevicePluginLayer layer = new io.rdmanode.deviceplugin.internal.Layer(new LayerSettings(DevicePaths.DEFAULT, List.of()));
        CdiSpec spec = layer.cdiSpec(dir, "rdmanode.io/net-pci", "vfs_a");
        CdiDevice vf = new CdiDevice("0000:3b:00.2", List.of(new DeviceNode("/dev/infiniband/uverbs1",
                "/dev/infiniband/uverbs1", "rw")), Map.of("RDMA_DEVICE", "mlx5_1", "QUOTE", "a\"b"));

        assertThat(spec.write(List.of(vf))).isTrue();
        assertThat(spec.write(List.of(vf))).isFalse();

        assertThat(spec.file()).isEqualTo(dir.resolve("rdmanode.io-net-pci_vfs_a.json"));
        assertThat(spec.qualifiedName("0000:3b:00.2")).isEqualTo("rdmanode.io/net-pci=0000:3b:00.2");
        assertThat(spec.annotationKey()).isEqualTo("cdi.k8s.io/rdmanode.io_net-pci_vfs_a");
        JsonNode json = new ObjectMapper().readTree(spec.file().toFile());
        assertThat(json.get("cdiVersion").asText()).isEqualTo("0.5.0");
        assertThat(json.get("kind").asText()).isEqualTo("rdmanode.io/net-pci");
        JsonNode edits = json.get("devices").get(0).get("containerEdits");
        assertThat(edits.get("env").get(0).asText()).isEqualTo("QUOTE=a\"b");
        assertThat(edits.get("deviceNodes").get(0).get("hostPath").asText()).isEqualTo("/dev/infiniband/uverbs1");
        spec.close();
        assertThat(spec.file()).as("a pool that stops leaves its spec").exists();
        assertThatThrownBy(() -> layer.cdiSpec(dir, "no-slash", "x")).hasMessageContaining("'no-slash'");
    }

    @Test
    void aLayerThatAsksNoKubeletRemovesNoSpecOnlyOldTemporaryFilesOfItsOwn() throws Exception {
        Files.writeString(dir.resolve("rdmanode.io-hca_gone.json"), "{}");
        Path oldTmp = Files.writeString(dir.resolve(".rdmanode.io-hca_gone123.tmp"), "{");
        Files.setLastModifiedTime(oldTmp, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis()
                - 120_000));
        Path liveTmp = Files.writeString(dir.resolve(".rdmanode.io-hca_live456.tmp"), "{");
        Files.writeString(dir.resolve("nvidia.com-gpu.json"), "{}");

        DevicePluginLayer layer = new io.rdmanode.deviceplugin.internal.Layer(new LayerSettings(DevicePaths.DEFAULT, List.of(dir)));

        // Who holds what is unknown without kubelet: a spec found stays (a pod may restart a container with it).
        try (var files = Files.list(dir)) {
            assertThat(files).containsExactlyInAnyOrder(dir.resolve("nvidia.com-gpu.json"),
                    dir.resolve("rdmanode.io-hca_gone.json"), liveTmp);
        }
        // A spec this layer writes stays when another pool's spec is created in the same directory.
        CdiSpec a = layer.cdiSpec(dir, "rdmanode.io/hca", "a");
        a.write(List.of(new CdiDevice("a", List.of(), Map.of())));
        layer.cdiSpec(dir, "rdmanode.io/hca", "b");
        assertThat(a.file()).exists();
    }
}
