// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.agent.Ttar;
import io.rdmanode.health.HealthCheck;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.util.converter.Converters;

/** The component without a framework, on the demo host; two consumers share it and see one revision. */
class DiscoveryComponentTest {

    @TempDir
    Path tmp;

    private DiscoveryComponent.Config config(Map<String, Object> props) {
        return Converters.standardConverter().convert(props).to(DiscoveryComponent.Config.class);
    }

    @Test
    void twoConsumersShareOneServiceAndSeeTheSameRevision() throws Exception {
        Ttar.unpack(Path.of(getClass().getResource("/fixtures/sysfs/cx5-roce-sriov.ttar").toURI()), tmp);
        DiscoveryComponent c = new DiscoveryComponent(config(Map.of("sysfsRoot", tmp.resolve("sys").toString(),
                "devRoot", tmp.resolve("dev").toString(), "rescanInterval", 0L)));
        try {
            RdmaDiscovery service = c;
            List<Long> a = new CopyOnWriteArrayList<>();
            List<Long> b = new CopyOnWriteArrayList<>();
            service.addListener((s, d) -> a.add(s.revision()));
            service.addListener((s, d) -> b.add(s.revision()));
            Files.writeString(tmp.resolve("sys/bus/pci/devices/0000:86:00.0/sriov_numvfs"), "4\n");

            HostSnapshot s = service.rescan();

            assertThat(a).containsExactly(s.revision());
            assertThat(b).containsExactly(s.revision());
            assertThat(c.check().ok()).isTrue();
            assertThat(c.kind()).isEqualTo(HealthCheck.Kind.READY);
            @SuppressWarnings("unchecked")
            Map<String, Object> status = (Map<String, Object>) c.status();
            assertThat(status).containsEntry("backend", "sysfs").containsEntry("revision", 2L)
                    .containsEntry("netnsMode", "unknown");
            assertThat((List<?>) status.get("devices")).hasSize(18);
            assertThat(status.get("scans")).isEqualTo(Map.of("full", 2L, "incremental", 0L, "failed", 0L));
            assertThat(status).containsEntry("kernelEvents", 0L);
            assertThat(status.get("physicalFunctions").toString()).contains("numVfs=4").contains("numaNode=1");
        } finally {
            c.stop();
        }
    }

    @Test
    void defaultsComeFromTheAnnotation() {
        DiscoveryComponent.Config c = config(Map.of());
        assertThat(c.backend()).isEqualTo("sysfs");
        assertThat(c.sysfsRoot()).isEqualTo("/sys");
        assertThat(c.devRoot()).isEqualTo("/dev");
        assertThat(c.rescanInterval()).isEqualTo(30000L);
        assertThat(c.eventDebounce()).isEqualTo(15L);
    }
}
