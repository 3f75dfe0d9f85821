// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The RDMA ledger: which VFs have an RDMA device, remembered while it is inside a pod's netns. */
class RdmaVfLedgerTest {

    @TempDir
    Path dir;

    @Test
    void theLedgerSurvivesARestartAndIsWrittenOnlyWhenItChanges() {
        Path file = dir.resolve("state/deviceplugin-sriov/rdma-vfs");
        RdmaVfLedger ledger = new RdmaVfLedger(file);
        VfRdma r = new VfRdma("mlx5_1", List.of(new VfRdma.Node("uverbs", "infiniband/uverbs1")));

        assertThat(ledger.entries()).isEmpty();
        assertThat(ledger.replace(java.util.Map.of("0000:3b:00.2", r))).isTrue();
        assertThat(ledger.replace(java.util.Map.of("0000:3b:00.2", r))).isFalse();

        assertThat(new RdmaVfLedger(file).entries()).containsExactly(java.util.Map.entry("0000:3b:00.2", r));
        assertThat(file.resolveSibling("rdma-vfs.tmp")).doesNotExist();
    }

    /** A byte that is not UTF-8 spoils its line only: every SR-IOV pool failed to activate on it (operator probe). */
    @Test
    void aLineThatIsNotUtf8IsSkippedAndTheRestRead() throws Exception {
        Path file = dir.resolve("state/deviceplugin-sriov/rdma-vfs");
        VfRdma r = new VfRdma("mlx5_1", List.of(new VfRdma.Node("uverbs", "infiniband/uverbs1")));
        new RdmaVfLedger(file).replace(java.util.Map.of("0000:3b:00.2", r));
        byte[] kept = java.nio.file.Files.readAllBytes(file);
        java.io.ByteArrayOutputStream damaged = new java.io.ByteArrayOutputStream();
        damaged.write(new byte[] {0, (byte) 0xff, ' ', 'g', 'a', 'r', 'b', 'a', 'g', 'e', '\n'});
        damaged.write(kept);
        java.nio.file.Files.write(file, damaged.toByteArray());

        assertThat(new RdmaVfLedger(file).entries()).containsExactly(java.util.Map.entry("0000:3b:00.2", r));
    }
}
