// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.discovery.internal.DiscoveryComponent;
import io.rdmanode.agent.Ttar;
import io.rdmanode.health.HealthStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.util.converter.Converters;

/**
 * {@code discovery.backend = verbs} on a host where libibverbs finds no device: the component activates, and
 * /readyz and /status say the backend is unavailable and why, while the sysfs facts stay visible.
 */
class VerbsBackendComponentTest {

    @Test
    void componentWithVerbsBackendReportsUnavailableInHealthAndStatus(@TempDir Path tmp) throws Exception {
        Assumptions.assumeFalse(Files.isDirectory(Path.of("/sys/class/infiniband_verbs")),
                "this host has RDMA devices: covered by VerbsSoftRoceIT instead");
        Ttar.unpack(Path.of(getClass().getResource("/fixtures/sysfs/rxe.ttar").toURI()), tmp);
        DiscoveryComponent c = new DiscoveryComponent(Converters.standardConverter().convert(Map.of(
                "backend", "verbs", "sysfsRoot", tmp.resolve("sys").toString(),
                "devRoot", tmp.resolve("dev").toString(), "rescanInterval", 0L)).to(DiscoveryComponent.Config.class));
        try {
            HealthStatus health = c.check();

            assertThat(health.ok()).isFalse();
            assertThat(health.message()).startsWith("verbs backend unavailable: ");
            @SuppressWarnings("unchecked")
            Map<String, Object> status = (Map<String, Object>) c.status();
            assertThat(status).containsEntry("backend", "verbs").containsEntry("backendAvailable", false)
                    .containsKey("backendUnavailableReason");
            assertThat(c.snapshot().devices()).isEmpty();
            assertThat(c.snapshot().netDevice("tb0")).isPresent();
        } finally {
            deactivate(c);
        }
    }

    /** As SCR does: the {@code @Deactivate} method is package-private to its own package, so call it reflectively. */
    private static void deactivate(DiscoveryComponent c) throws ReflectiveOperationException {
        java.lang.reflect.Method stop = DiscoveryComponent.class.getDeclaredMethod("stop");
        stop.setAccessible(true);
        stop.invoke(c);
    }
}
