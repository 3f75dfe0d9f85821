// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.PciAddress;
import io.rdmanode.discovery.RdmaPort;
import io.rdmanode.discovery.TopologyDiff;
import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.discovery.internal.sysfs.SysfsRoot;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import io.rdmanode.agent.Ttar;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Recorded host: a change is made by editing the tree and triggering a rescan. */
class DiscoveryEngineTest {

    @TempDir
    Path tmp;
    private SysfsRoot root;
    private DiscoveryEngine engine;
    private final List<TopologyDiff> diffs = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        Ttar.unpack(Path.of(getClass().getResource("/fixtures/sysfs/cx5-roce-sriov.ttar").toURI()), tmp);
        root = new SysfsRoot(tmp.resolve("sys"), tmp.resolve("dev"));
        engine = new DiscoveryEngine(new SysfsTopologySource(root, () -> NetnsMode.unknown("test")), 0);
        engine.addListener((s, d) -> diffs.add(d));
    }

    @AfterEach
    void stop() {
        engine.close();
    }

    /**
     * An event that arrives while the scan of the previous one is still running (here: from a listener, on the
     * scan thread, the tightest case) gets its own scan instead of waiting for the next event.
     */
    @Test
    void anEventDuringAScanIsScannedToo() throws Exception {
        Path mlx5_0 = root.sys().resolve("class/infiniband/mlx5_0/ports/1/state");
        Path mlx5_3 = root.sys().resolve("class/infiniband/mlx5_3/ports/1/state");
        engine.addListener((s, d) -> {
            if (s.revision() == 2) {
                try {
                    Files.writeString(mlx5_3, "1: DOWN\n");
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                engine.requestScan(new ScanHints().rdmaDevice("mlx5_3"));
            }
        });
        Files.writeString(mlx5_0, "1: DOWN\n");

        engine.requestScan(new ScanHints().rdmaDevice("mlx5_0"));

        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5))
                .until(() -> engine.snapshot().revision() == 3);
        assertThat(engine.snapshot().device("mlx5_3").orElseThrow().port(1).orElseThrow().state())
                .isEqualTo(RdmaPort.PortState.DOWN);
    }

    @Test
    void unchangedHostKeepsItsRevision() {
        assertThat(engine.snapshot().revision()).isEqualTo(1);
        assertThat(engine.rescan().revision()).isEqualTo(1);
        assertThat(diffs).isEmpty();
    }

    @Test
    void portStateChangeIsADiff() throws Exception {
        Files.writeString(root.sys().resolve("class/infiniband/mlx5_3/ports/1/state"), "1: DOWN\n");

        HostSnapshot s = engine.rescan();

        assertThat(s.revision()).isEqualTo(2);
        assertThat(diffs).singleElement().satisfies(d -> {
            assertThat(d.fromRevision()).isEqualTo(1);
            assertThat(d.toRevision()).isEqualTo(2);
            assertThat(d.portsChanged()).singleElement().satisfies(p -> {
                assertThat(p.device()).isEqualTo("mlx5_3");
                assertThat(p.after().state()).isEqualTo(RdmaPort.PortState.DOWN);
            });
        });
    }

    @Test
    void removedVfIsSeenByAnIncrementalScanWithItsPf() throws Exception {
        PciAddress vf = PciAddress.parse("0000:3b:01.1").orElseThrow();
        Path pf = root.sys().resolve("bus/pci/devices/0000:3b:00.0");
        Path vfDir = root.sys().resolve("bus/pci/devices/" + vf).toRealPath();
        Files.delete(pf.resolve("virtfn7"));
        Files.writeString(pf.resolve("sriov_numvfs"), "7\n");
        Files.delete(root.sys().resolve("class/infiniband/mlx5_8"));
        Files.delete(root.sys().resolve("class/net/ens1f0v7"));
        Files.delete(root.sys().resolve("bus/pci/devices/" + vf));
        BrokenTree.deleteTree(vfDir);

        HostSnapshot s = engine.apply(new ScanHints().pciFunction(vf));

        assertThat(s.revision()).isEqualTo(2);
        TopologyDiff d = diffs.get(0);
        assertThat(d.devicesRemoved()).containsExactly("mlx5_8");
        assertThat(d.netDevicesRemoved()).containsExactly("ens1f0v7");
        assertThat(d.pciFunctionsRemoved()).containsExactly("0000:3b:01.1");
        assertThat(d.vfCountsChanged()).singleElement().satisfies(c -> {
            assertThat(c.before()).isEqualTo(8);
            assertThat(c.after()).isEqualTo(7);
        });
        assertThat(s).usingRecursiveComparison().ignoringFields("takenAt").isEqualTo(engine.rescan());
    }
}
