// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.osgi.util.converter.Converters;

/**
 * The kernel's sysfs mounted somewhere else than {@code /sys}, as a DaemonSet mounts the host's at
 * {@code /host/sys}: a real sysfs mount at a temporary path, discovery reading it with no periodic rescan. From
 * this network namespace, a new net device must arrive by kernel events; a sysfs mounted from another namespace
 * (it lists that namespace's devices) must turn events off and say why. Needs root, iproute2, mount and nsenter.
 */
class KernelEventsAtAnotherRootLiveTest {

    private static final long PID = ProcessHandle.current().pid();
    private static final String NS = "rdt-root-" + PID;
    private static final String LINK = "rdtr" + (PID % 10000);
    private static final Duration WITHIN = Duration.ofSeconds(3);

    private Path mountPoint;
    private final List<DiscoveryComponent> components = new ArrayList<>();

    @BeforeEach
    void namespace() throws Exception {
        Assumptions.assumeTrue(run("ip", "netns", "add", NS) == 0, "needs root and iproute2 (ip netns add)");
        // Not a @TempDir: its clean-up must never walk into a sysfs left mounted.
        mountPoint = Files.createTempDirectory("rdt-sysfs-");
    }

    @AfterEach
    void cleanUp() throws Exception {
        components.forEach(DiscoveryComponent::stop);
        run("umount", "-l", mountPoint.toString());
        Files.deleteIfExists(mountPoint);
        run("ip", "link", "del", LINK);
        run("ip", "netns", "del", NS);
    }

    private DiscoveryComponent discovery() {
        DiscoveryComponent c = new DiscoveryComponent(Converters.standardConverter().convert(Map.of(
                "sysfsRoot", mountPoint.toString(), "devRoot", "/dev", "rescanInterval", 0L))
                .to(DiscoveryComponent.Config.class));
        components.add(c);
        return c;
    }

    @Test
    void aNewNetDeviceArrivesByKernelEventsWhenTheSysfsIsThisNamespaces() throws Exception {
        Assumptions.assumeTrue(run("mount", "-t", "sysfs", "sysfs", mountPoint.toString()) == 0,
                "needs CAP_SYS_ADMIN to mount a sysfs");
        DiscoveryComponent c = discovery();
        assertThat(status(c).get("events").toString()).startsWith("uevent+rtnetlink").contains(mountPoint.toString());

        addLink();
        await().atMost(WITHIN).pollInterval(Duration.ofMillis(10))
                .until(() -> c.snapshot().netDevice(LINK).isPresent());

        assertThat(run("ip", "link", "del", LINK)).isZero();
        await().atMost(WITHIN).pollInterval(Duration.ofMillis(10))
                .until(() -> c.snapshot().netDevice(LINK).isEmpty());
        assertThat((Long) status(c).get("kernelEvents")).isPositive();
    }

    @Test
    void aSysfsOfAnotherNamespaceTurnsEventsOffAndSaysWhy() throws Exception {
        Assumptions.assumeTrue(run("nsenter", "--net=/run/netns/" + NS, "mount", "-t", "sysfs", "sysfs",
                mountPoint.toString()) == 0, "needs nsenter and CAP_SYS_ADMIN to mount a sysfs");
        DiscoveryComponent c = discovery();
        assertThat(status(c).get("events").toString())
                .startsWith("off (sysfs at " + mountPoint).contains("another network namespace", "hostNetwork");
        assertThat(c.snapshot().netDevice("lo")).as("the tree is still read: that namespace's lo").isPresent();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> status(DiscoveryComponent c) {
        return (Map<String, Object>) c.status();
    }

    private static void addLink() throws Exception {
        if (run("ip", "link", "add", LINK, "type", "dummy") != 0) {
            // Without the dummy module: a veth whose peer lives in the test namespace.
            assertThat(run("ip", "link", "add", LINK, "type", "veth", "peer", "name", LINK + "p", "netns", NS))
                    .isZero();
        }
    }

    private static int run(String... cmd) throws IOException, InterruptedException {
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start().waitFor();
    }
}
