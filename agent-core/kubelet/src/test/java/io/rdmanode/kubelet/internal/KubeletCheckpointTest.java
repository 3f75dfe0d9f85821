// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmanode.kubelet.HeldDevice;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeletCheckpointTest {

    @TempDir
    Path dir;

    static Path fixture(String name) {
        try {
            return Path.of(KubeletCheckpointTest.class.getResource("/fixtures/checkpoint/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void readsNumaKeyedDeviceIdsOfKubelet120AndLater() throws Exception {
        List<HeldDevice> held = KubeletCheckpoint.read(fixture("kubelet-1.26.json"));

        String trainer = "5a3c2e0f-8b7d-4d2e-9f51-0c6a7b1e2d34";
        String worker = "c91e44b7-2f0a-4a8e-b3d6-7e5f19a0c8b2";
        assertThat(held).containsExactlyInAnyOrder(
                new HeldDevice("", "", trainer, "trainer", "rdma/sriov_a", "0000:3b:00.2"),
                new HeldDevice("", "", trainer, "trainer", "rdma/sriov_a", "0000:af:00.3"),
                new HeldDevice("", "", trainer, "trainer", "rdma/hca_shared_a", "hca_shared_a-0"),
                new HeldDevice("", "", worker, "worker", "rdma/sriov_a", "0000:3b:00.4"),
                new HeldDevice("", "", worker, "worker", "rdma/sriov_a", "0000:3b:00.5"));
        assertThat(held).allSatisfy(d -> assertThat(d.podKey()).isEqualTo(d.podUid()));
    }

    @Test
    void readsThePlainListOfKubeletsBefore120() throws Exception {
        assertThat(KubeletCheckpoint.read(fixture("kubelet-1.19-list.json"))).extracting(HeldDevice::deviceId)
                .containsExactly("hca_a-3", "hca_a-7");
    }

    @Test
    void readsNoHoldingsFromGosNullEntryList() throws Exception {
        assertThat(KubeletCheckpoint.read(fixture("empty.json"))).isEmpty();
    }

    @Test
    void refusesATruncatedFileNamingItAndTheParseError() {
        Path file = fixture("truncated.json");
        assertThatThrownBy(() -> KubeletCheckpoint.read(file))
                .isInstanceOf(KubeletCheckpoint.CheckpointException.class)
                .hasMessageStartingWith("kubelet checkpoint " + file + " is malformed: not JSON (300 bytes, truncated?)");
    }

    @Test
    void refusesDeviceIdsOfAnotherShapeNamingTheEntry() {
        assertThatThrownBy(() -> KubeletCheckpoint.read(fixture("wrong-shape.json")))
                .hasMessageEndingWith("is malformed: Data.PodDeviceEntries[0].DeviceIDs is neither a list nor a map"
                        + " of NUMA node to list");
    }

    @Test
    void saysAbsentWhenKubeletNeverWroteOne() {
        Path file = dir.resolve(KubeletCheckpoint.FILE_NAME);
        assertThatThrownBy(() -> KubeletCheckpoint.read(file)).hasMessage("kubelet checkpoint " + file + ": absent");
    }

    @Test
    void refusesAFileWithoutData() {
        assertThatThrownBy(() -> KubeletCheckpoint.parse(dir, "{\"Checksum\":1}".getBytes()))
                .hasMessageEndingWith("is malformed: no \"Data\" object");
        assertThatThrownBy(() -> KubeletCheckpoint.parse(dir, "[]".getBytes()))
                .hasMessageEndingWith("is malformed: not a JSON object");
        assertThatThrownBy(() -> KubeletCheckpoint.parse(dir, new byte[0]))
                .hasMessageEndingWith("is malformed: not a JSON object");
    }
}
