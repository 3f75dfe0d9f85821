// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.agent.Ttar;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.service.component.ComponentConstants;
import org.osgi.service.component.ComponentContext;
import org.osgi.util.converter.Converters;

/**
 * Live tuning (issue #9 item 4): a {@code rescanInterval} or {@code eventDebounce} edit is applied by the
 * running instance, which keeps its snapshot, revision and listeners and asks SCR for nothing, so the service
 * consumers hold (device-plugin servers with their sockets and kubelet registrations) is the same one. A new
 * root or backend asks SCR to restart the component (from another thread: SCR holds the component's lock while
 * calling {@code modified}). {@code DiscoveryTuningIT} (agent-core/itest) checks both on real Felix SCR.
 */
class DiscoveryTuningTest {

    @TempDir
    Path tmp;
    private final List<String> scrCalls = new CopyOnWriteArrayList<>();
    private ComponentContext context;

    @BeforeEach
    void recordedHostAndARecordingComponentContext() throws Exception {
        Ttar.unpack(Path.of(getClass().getResource("/fixtures/sysfs/cx5-roce-sriov.ttar").toURI()), tmp);
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(ComponentConstants.COMPONENT_NAME, DiscoveryComponent.class.getName());
        context = (ComponentContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ComponentContext.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getProperties" -> props;
                    case "getBundleContext" -> null;
                    case "disableComponent", "enableComponent" -> {
                        scrCalls.add(method.getName() + " " + args[0]);
                        yield null;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private DiscoveryComponent.Config config(Map<String, Object> extra) {
        Map<String, Object> props = new java.util.HashMap<>(Map.of("sysfsRoot", tmp.resolve("sys").toString(),
                "devRoot", tmp.resolve("dev").toString(), "rescanInterval", 0L));
        props.putAll(extra);
        return Converters.standardConverter().convert(props).to(DiscoveryComponent.Config.class);
    }

    @Test
    void aRescanIntervalEditIsAppliedInPlaceWithoutDeactivatingTheComponent() throws Exception {
        DiscoveryComponent c = new DiscoveryComponent(config(Map.of()), context);
        try {
            List<Long> seen = new CopyOnWriteArrayList<>();
            c.addListener((s, d) -> seen.add(s.revision()));
            HostSnapshot before = c.snapshot();

            c.modified(config(Map.of("rescanInterval", 120_000L, "eventDebounce", 40L)));

            assertThat(scrCalls).as("no disable/enable: the component and its service stay").isEmpty();
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
        DiscoveryComponent c = new DiscoveryComponent(config(Map.of("rescanInterval", 30_000L)), context);
        try {
            c.modified(config(Map.of("rescanInterval", 0L)));
            assertThat(status(c).get("tuning")).isEqualTo(Map.of("rescanInterval", 0L, "eventDebounce", 15L));
            c.modified(config(Map.of("rescanInterval", 5_000L)));
            assertThat(status(c).get("tuning")).isEqualTo(Map.of("rescanInterval", 5_000L, "eventDebounce", 15L));
            assertThat(scrCalls).isEmpty();
        } finally {
            c.stop();
        }
    }

    @Test
    void anotherRootOrBackendRestartsTheComponent() {
        DiscoveryComponent c = new DiscoveryComponent(config(Map.of()), context);
        try {
            c.modified(config(Map.of("sysfsRoot", tmp.resolve("elsewhere").toString())));
            await().atMost(Duration.ofSeconds(5)).until(() -> scrCalls.size() == 2);
            assertThat(scrCalls).containsExactly("disableComponent " + DiscoveryComponent.class.getName(),
                    "enableComponent " + DiscoveryComponent.class.getName());

            scrCalls.clear();
            c.modified(config(Map.of("backend", "verbs")));
            await().atMost(Duration.ofSeconds(5)).until(() -> scrCalls.size() == 2);
        } finally {
            c.stop();
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> status(DiscoveryComponent c) {
        return (Map<String, Object>) c.status();
    }
}
