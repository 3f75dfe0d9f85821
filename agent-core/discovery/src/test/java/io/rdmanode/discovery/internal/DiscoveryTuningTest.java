// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.agent.Ttar;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.util.converter.Converters;

/**
 * Live tuning (issue #9 item 4): a {@code rescanInterval} or {@code eventDebounce} edit is applied by the
 * running instance, which keeps its snapshot, revision and listeners and asks SCR for nothing, so the service
 * consumers hold (device-plugin servers with their sockets and kubelet registrations) is the same one. A new
 * root or backend is read by the same engine through a new source: the listeners hear the new tree as a diff. {@code DiscoveryTuningIT} (agent-core/itest) checks both on real Felix SCR.
 */
class DiscoveryTuningTest {

    @TempDir
    Path tmp;
    @BeforeEach
    void recordedHost() throws Exception {
        Ttar.unpack(Path.of(getClass().getResource("/fixtures/sysfs/cx5-roce-sriov.ttar").toURI()), tmp);
    }

    private DiscoveryComponent.Config config(Map<String, Object> extra) {
        Map<String, Object> props = new java.util.HashMap<>(Map.of("sysfsRoot", tmp.resolve("sys").toString(),
                "devRoot", tmp.resolve("dev").toString(), "rescanInterval", 0L));
        props.putAll(extra);
        return Converters.standardConverter().convert(props).to(DiscoveryComponent.Config.class);
    }

    @Test
    void aRescanIntervalEditIsAppliedInPlaceWithoutDeactivatingTheComponent() throws Exception {
        DiscoveryComponent c = new DiscoveryComponent(config(Map.of()));
        try {
            List<Long> seen = new CopyOnWriteArrayList<>();
            c.addListener((s, d) -> seen.add(s.revision()));
            HostSnapshot before = c.snapshot();

            c.modified(config(Map.of("rescanInterval", 120_000L, "eventDebounce", 40L)));

            assertThat(c.snapshot()).isSameAs(before);
            assertThat(status(c).get("tuning")).isEqualTo(Map.of("rescanInterval", 120_000L, "eventDebounce", 40L));
            // Still the same running engine: a change reaches the listener registered before the edit.
            Files.writeString(tmp.resolve("sys/bus/pci/devices/0000:86:00.0/sriov_numvfs"), "4\n");
            HostSnapshot after = c.rescan();
            assertThat(after.revision()).isEqualTo(before.revision() + 1);
            assertThat(seen).containsExactly(after.revision());
            assertThat(c.check().ok()).isTrue();
        } finally {
            c.stop();
        }
    }

    @Test
    void turningThePeriodicRescanOffAndOnIsATuningEditToo() {
        DiscoveryComponent c = new DiscoveryComponent(config(Map.of("rescanInterval", 30_000L)));
        try {
            c.modified(config(Map.of("rescanInterval", 0L)));
            assertThat(status(c).get("tuning")).isEqualTo(Map.of("rescanInterval", 0L, "eventDebounce", 15L));
            c.modified(config(Map.of("rescanInterval", 5_000L)));
            assertThat(status(c).get("tuning")).isEqualTo(Map.of("rescanInterval", 5_000L, "eventDebounce", 15L));
        } finally {
            c.stop();
        }
    }

    @Test
    void anotherRootIsReadByTheSameRunningEngineAndListenersHearItAsADiff() throws Exception {
        DiscoveryComponent c = new DiscoveryComponent(config(Map.of()));
        try {
            List<HostSnapshot> seen = new CopyOnWriteArrayList<>();
            c.addListener((s, d) -> seen.add(s));
            HostSnapshot before = c.snapshot();
            Path empty = tmp.resolve("elsewhere");
            Files.createDirectories(empty.resolve("sys/class/infiniband"));

            c.modified(config(Map.of("sysfsRoot", empty.resolve("sys").toString())));

            assertThat(c.snapshot().revision()).isEqualTo(before.revision() + 1);
            assertThat(c.snapshot().devices()).isEmpty();
            assertThat(seen).extracting(HostSnapshot::revision).containsExactly(before.revision() + 1);
            assertThat(((Map<?, ?>) status(c).get("identity")).get("sysfsRoot"))
                    .isEqualTo(empty.resolve("sys").toString());

            c.modified(config(Map.of()));                    // back: the devices return as one more diff
            assertThat(c.snapshot().devices()).hasSize(before.devices().size());
            assertThat(seen).hasSize(2);
        } finally {
            c.stop();
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> status(DiscoveryComponent c) {
        return (Map<String, Object>) c.status();
    }
}
