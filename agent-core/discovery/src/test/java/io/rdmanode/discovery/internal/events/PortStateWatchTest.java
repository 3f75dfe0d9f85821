// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmanode.agent.Ttar;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.RdmaPort.PortState;
import io.rdmanode.discovery.TopologyDiff;
import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.discovery.internal.sysfs.SysfsRoot;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An InfiniBand port's state change on the recorded ConnectX-6 InfiniBand host, with the periodic rescan off: it
 * raises no kernel event, so only the watch can bring it to listeners.
 */
class PortStateWatchTest {

    private static final String PORT_DIR = "sys/class/infiniband/mlx5_0/ports/1";

    @TempDir
    Path tmp;
    private DiscoveryEngine engine;
    private PortStateWatch watch;
    private final List<TopologyDiff> diffs = new CopyOnWriteArrayList<>();

    @BeforeEach
    void host() throws Exception {
        Ttar.unpack(Path.of(getClass().getResource("/fixtures/sysfs/cx6-ib.ttar").toURI()), tmp);
        SysfsRoot root = SysfsRoot.of(tmp.resolve("sys").toString(), tmp.resolve("dev").toString());
        engine = new DiscoveryEngine(new SysfsTopologySource(root, () -> NetnsMode.unknown("test")), 0);
        engine.addListener((s, d) -> diffs.add(d));
    }

    @AfterEach
    void stop() {
        if (watch != null) {
            watch.close();
        }
        engine.close();
    }

    @Test
    void aPortGoingDownAndUpReachesListenersWithoutARescan() throws Exception {
        watch = new PortStateWatch(tmp.resolve("sys/class/infiniband"), engine::snapshot, Set::of,
                engine::requestScan);
        assertThat(engine.snapshot().device("mlx5_0").orElseThrow().ports().get(0).state())
                .isEqualTo(PortState.ACTIVE);

        write("state", "1: DOWN");
        write("phys_state", "3: Disabled");
        await().atMost(Duration.ofSeconds(3)).until(() -> changedTo(PortState.DOWN));

        write("state", "4: ACTIVE");
        write("phys_state", "5: LinkUp");
        await().atMost(Duration.ofSeconds(3)).until(() -> changedTo(PortState.ACTIVE));
        assertThat(watch.status()).containsEntry("portsWatched", 1).containsEntry("changes", 2L);
    }

    @Test
    void aDeviceWhoseVerbsEventsReportPortsIsNotRead() throws Exception {
        List<ScanHints> asked = new CopyOnWriteArrayList<>();
        watch = new PortStateWatch(tmp.resolve("sys/class/infiniband"), engine::snapshot, () -> Set.of("mlx5_0"),
                asked::add);
        write("state", "1: DOWN");
        await().atMost(Duration.ofSeconds(5)).until(() -> (Long) watch.status().get("rounds") >= 3);
        assertThat(asked).isEmpty();
        assertThat(watch.status()).containsEntry("portsWatched", 0);
    }

    @Test
    void aChangeIsAskedAboutOnceWhileTheScanDoesNotSeeIt() throws Exception {
        List<ScanHints> asked = new CopyOnWriteArrayList<>();
        watch = new PortStateWatch(tmp.resolve("sys/class/infiniband"), engine::snapshot, Set::of, asked::add);
        write("state", "2: INIT");
        await().atMost(Duration.ofSeconds(3)).until(() -> asked.size() == 1);
        long after = (Long) watch.status().get("rounds");
        await().atMost(Duration.ofSeconds(5)).until(() -> (Long) watch.status().get("rounds") >= after + 3);
        assertThat(asked).hasSize(1);
    }

    private boolean changedTo(PortState state) {
        return diffs.stream().flatMap(d -> d.portsChanged().stream())
                .anyMatch(c -> c.device().equals("mlx5_0") && c.after().state() == state);
    }

    private void write(String file, String value) throws Exception {
        Files.writeString(tmp.resolve(PORT_DIR).resolve(file), value + "\n");
    }
}
