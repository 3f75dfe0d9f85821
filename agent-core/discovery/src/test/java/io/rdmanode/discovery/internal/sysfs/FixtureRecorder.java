// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.sysfs;

import io.rdmanode.agent.Ttar;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * Regenerates the synthesized fixtures: {@code ./mvnw -f agent-core/discovery/pom.xml test-compile exec:java
 * -Dexec.classpathScope=test -Dexec.mainClass=io.rdmanode.discovery.internal.sysfs.FixtureRecorder}
 * (run from the repository root). Writes {@code src/test/resources/fixtures/sysfs/*.ttar} and the demo host
 * {@code config/demo-host/cx5-roce-sriov.ttar}, which is also the cx5 fixture (one copy).
 */
public final class FixtureRecorder {

    private FixtureRecorder() {
    }

    public static void main(String[] args) throws IOException {
        Path repo = Path.of(args.length > 0 ? args[0] : ".").toAbsolutePath();
        Path fixtures = repo.resolve("agent-core/discovery/src/test/resources/fixtures/sysfs");
        // The demo host is also the cx5 fixture: one copy, in config/ (the build adds it to the test fixtures).
        Path demo = repo.resolve("config/demo-host/cx5-roce-sriov.ttar");
        Files.createDirectories(demo.getParent());
        record(demo, FixtureHosts::cx5RoceSriov,
                "ConnectX-5 Socket Direct RoCE host, 2 PFs x 8 VFs, NUMA 0/1; synthesized, see PROVENANCE.md");
        record(fixtures.resolve("cx6-ib.ttar"), FixtureHosts::cx6Ib,
                "ConnectX-6 HDR InfiniBand HCA host; synthesized, see PROVENANCE.md");
        record(fixtures.resolve("rxe.ttar"), FixtureHosts::rxe,
                "Soft-RoCE host modelled on ../shared/testbed/sysfs-rxe-reference.txt; see PROVENANCE.md");
        record(fixtures.resolve("cx7-roce-bond.ttar"), FixtureHosts::cx7RoceBond,
                "ConnectX-7 dual-port RoCE NIC in LAG mode (mlx5_bond_0 on bond0); constructed, see PROVENANCE.md");
        record(fixtures.resolve("rxe-on-pci-nic.ttar"), FixtureHosts::rxeOnPciNic,
                "Soft-RoCE rxe0 on eth0 of an Intel X710 (PCI, NUMA 1); constructed, see PROVENANCE.md");
    }

    static void record(Path archive, Consumer<Path> host, String comment) throws IOException {
        Path tmp = Files.createTempDirectory("ttar-record");
        host.accept(tmp);
        try (Writer w = Files.newBufferedWriter(archive, StandardCharsets.UTF_8)) {
            Ttar.pack(tmp, w, List.of(comment, "Format: io.rdmanode.agent.Ttar (agent-core/api)."));
        }
    }
}
