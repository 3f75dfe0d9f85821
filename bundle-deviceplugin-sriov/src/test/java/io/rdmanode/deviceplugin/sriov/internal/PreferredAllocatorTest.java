// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.deviceplugin.sriov.internal.PreferredAllocator.Policy;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GetPreferredAllocation choices on the generated 4 PF x 4 VF host (PFs 0 and 2 on NUMA 0, 1 and 3 on NUMA 1). */
class PreferredAllocatorTest {

    @TempDir
    static Path dir;
    private static final Map<String, SriovVf> VFS = new LinkedHashMap<>();
    private static final DevicePluginLayer LAYER = io.rdmanode.deviceplugin.testing.DevicePluginTesting.layer(LayerSettings.DEFAULT);

    @BeforeAll
    static void generate() {
        SriovVf.all(LAYER, SriovHost.generated(dir, 4, 4).snapshot()).forEach(v -> VFS.put(v.id(), v));
    }

    private static List<String> all() {
        return List.copyOf(VFS.keySet());
    }

    private static List<Integer> numa(List<String> ids) {
        return ids.stream().map(id -> VFS.get(id).numaNode().orElseThrow()).distinct().toList();
    }

    private static List<String> pfs(List<String> ids) {
        return ids.stream().map(id -> VFS.get(id).pf().toString()).toList();
    }

    @Test
    void spreadTakesOneVfPerPfOnOneNumaNode() {
        List<String> chosen = PreferredAllocator.choose(VFS, all(), List.of(), 4, Policy.SPREAD);

        assertThat(chosen).hasSize(4);
        assertThat(numa(chosen)).hasSize(1);
        assertThat(pfs(chosen)).containsExactlyInAnyOrder("0000:11:00.0", "0000:31:00.0", "0000:11:00.0",
                "0000:31:00.0");
    }

    @Test
    void packFillsOnePfFirst() {
        List<String> chosen = PreferredAllocator.choose(VFS, all(), List.of(), 3, Policy.PACK);

        assertThat(pfs(chosen)).containsOnly("0000:11:00.0");
    }

    @Test
    void mustIncludeComesFirstAndPullsTheRestToItsNumaNodeAndPf() {
        String onNuma1 = VFS.values().stream().filter(v -> v.numaNode().orElseThrow() == 1).findFirst()
                .orElseThrow().id();

        List<String> packed = PreferredAllocator.choose(VFS, all(), List.of(onNuma1), 3, Policy.PACK);
        List<String> spread = PreferredAllocator.choose(VFS, all(), List.of(onNuma1), 3, Policy.SPREAD);

        assertThat(packed.get(0)).isEqualTo(onNuma1);
        assertThat(numa(packed)).containsExactly(1);
        assertThat(pfs(packed)).containsOnly(VFS.get(onNuma1).pf().toString());
        assertThat(spread.get(0)).isEqualTo(onNuma1);
        assertThat(numa(spread)).containsExactly(1);
        // NUMA 1 has two PFs: the next VF comes from the other one, the third from the must-include's again.
        assertThat(pfs(spread).get(1)).isNotEqualTo(VFS.get(onNuma1).pf().toString());
        assertThat(pfs(spread)).containsOnly(pfs(spread).get(0), pfs(spread).get(1));
    }

    @Test
    void prefersTheNumaNodeThatFitsTheWholeRequest() {
        // NUMA 0 keeps only 2 VFs available, NUMA 1 all 8: a request for 3 goes to NUMA 1.
        List<String> available = all().stream().filter(id -> VFS.get(id).numaNode().orElseThrow() == 1
                || id.equals(all().get(0)) || id.equals(all().get(1))).toList();

        assertThat(numa(PreferredAllocator.choose(VFS, available, List.of(), 3, Policy.PACK))).containsExactly(1);
        assertThat(numa(PreferredAllocator.choose(VFS, available, List.of(), 2, Policy.PACK))).hasSize(1);
        assertThat(PreferredAllocator.choose(VFS, available, List.of(), 10, Policy.SPREAD)).hasSize(10);
    }

    @Test
    void ignoresIdsItDoesNotKnowAndNeverExceedsTheSize() {
        List<String> chosen = PreferredAllocator.choose(VFS, List.of("bogus", all().get(3)), List.of(), 2,
                Policy.SPREAD);

        assertThat(chosen).containsExactly(all().get(3));
        assertThat(PreferredAllocator.choose(VFS, all(), all().subList(0, 2), 2, Policy.SPREAD))
                .containsExactlyElementsOf(all().subList(0, 2));
    }
}
