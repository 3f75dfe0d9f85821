// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #20's property over {@link LedgerChaos}'s random sequences (admit, pod removal, pool edit moving VFs
 * between resources, agent kill with the ledger kept, lost or half-written, kubelet restart, SR-IOV hot swap): after
 * every action no device ID is held by two pods in kubelet's book (read through PodResources), and every VF held
 * under a resource a current pool serves has its device-info file (once the 300 ms reconciliation has passed).
 * A failure names the seed and the actions so far. Checked by hand against broken builds: a ledger that publishes
 * no held device fails all six seeds (device-info files go); SR-IOV's pinning of held VFs removed alone passes (the
 * layer still offers and allocates a held device under no other resource), removed together with the layer's
 * filter and Allocate check fails four seeds with a VF held by two pods.
 */
class LedgerPropertyTest {

    private static final int ACTIONS = 40;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 20, 42, 2026})
    void noDeviceHeldTwiceAndEveryHeldVfHasItsDeviceInfo(long seed) {
        try (LedgerChaos chaos = new LedgerChaos(dir, seed)) {
            try {
                for (int i = 0; i < ACTIONS; i++) {
                    chaos.step();
                    assertThat(chaos.doubleHeld()).as("device IDs held by two pods in kubelet's book").isEmpty();
                    Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                            chaos.missingDeviceInfo(Duration.ZERO)).as("held VFs without device-info file").isEmpty());
                }
                assertThat(chaos.counts()).as("actions run").containsKeys("admit", "edit", "agent kill");
            } catch (Throwable e) {
                throw new AssertionError("seed " + seed + ", actions:\n  " + String.join("\n  ", chaos.log())
                        + "\n" + e, e);
            }
        }
    }
}
