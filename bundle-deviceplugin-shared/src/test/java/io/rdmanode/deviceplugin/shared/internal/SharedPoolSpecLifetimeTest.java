// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.deviceplugin.ServedPool;
import io.rdmanode.deviceplugin.testing.DevicePluginTesting;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import io.rdmanode.kubelet.testing.KubeletTestbed;
import io.rdmanode.kubelet.testing.PodDevicesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shared pool's CDI spec against the kubelet double (its book, its PodResources) and an agent's layer with a
 * state directory: written when the pool starts, before any Allocate; kept across a bundle stop, an agent stop
 * and a start where the pool is not configured while a pod holds one of its IDs; gone once the pool is removed
 * from the configuration and the pod is gone.
 */
class SharedPoolSpecLifetimeTest {

    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final int BUNDLE_STOPPED = 6;             // ComponentConstants.DEACTIVATION_REASON_*

    @TempDir
    Path dir;
    private RecordedHostDiscovery discovery;
    private KubeletTestbed kubelet;
    private PodDevicesClient podDevices;
    private DevicePluginLayer layer;
    private SharedPoolRegistry registry;
    private Path cdi;

    @BeforeEach
    void start() throws Exception {
        discovery = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir.resolve("host"));
        kubelet = KubeletTestbed.start(dir);
        kubelet.servePodResources(dir.resolve("pr.sock"));
        podDevices = kubelet.podDevices();
        cdi = dir.resolve("cdi");
        agent();
    }

    /** The agent's layer (starting again: the same state directory). */
    private void agent() {
        layer = DevicePluginTesting.layer(new LayerSettings(new DevicePaths(Path.of("/node/dev")), List.of(cdi)),
                dir.resolve("state/allocations"), podDevices, Duration.ofMillis(300));
        registry = new SharedPoolRegistry(layer);
    }

    @AfterEach
    void stop() {
        DevicePluginTesting.close(layer);
        podDevices.close();
        kubelet.close();
    }

    private SharedPoolDevicePlugin activate(String name) {
        return new SharedPoolDevicePlugin(Pools.config(name, "rdmaHcaMax", 3, "selectors.vendors",
                new String[] {"15b3"}, "cdi", true, "cdiSpecDir", cdi.toString()), discovery, kubelet.host(), layer,
                registry, dir.resolve("node"));
    }

    @Test
    void theSpecIsWrittenAtStartKeptWhileHeldAndGoesOnceRetiredAndReleased() throws Exception {
        Path spec = cdi.resolve("rdmanode.io-hca_hca_a.json");
        Path free = cdi.resolve("rdmanode.io-hca_hca_b.json");
        SharedPoolDevicePlugin a = activate("hca_a");
        SharedPoolDevicePlugin b = activate("hca_b");
        assertThat(spec).as("written when the pool starts, before any Allocate").exists();
        assertThat(Files.readString(spec)).contains("\"name\":\"hca_a\"", "/node/dev/infiniband/uverbs");
        kubelet.awaitRegistrations("rdma/hca_a", 1, WAIT);
        assertThat(kubelet.admit("default", "p1", "c", "rdma/hca_a", 1)).hasSize(1);

        a.stop(BUNDLE_STOPPED);                                         // a bundle stop or hot swap
        b.stop(BUNDLE_STOPPED);
        assertThat(spec).exists();
        assertThat(free).exists();

        // The agent stops and starts with neither pool configured: only the pool nobody uses goes.
        DevicePluginTesting.close(layer);
        agent();
        Awaitility.await().atMost(WAIT).untilAsserted(() -> assertThat(free).doesNotExist());
        assertThat(spec).as("p1 holds an ID of hca_a").exists();
        assertThat(DevicePluginTesting.cdiStatus(layer).get("kept").toString()).contains(spec.toString(),
                "rdma/hca_a");

        // hca_a is configured again, then removed from the configuration while p1 runs; p1 ends.
        a = activate("hca_a");
        kubelet.awaitRegistrations("rdma/hca_a", 2, WAIT);
        a.stop(ServedPool.CONFIGURATION_DELETED);
        Thread.sleep(1000);
        assertThat(spec).exists();
        kubelet.remove("default", "p1");
        Awaitility.await().atMost(WAIT).untilAsserted(() -> assertThat(spec).doesNotExist());
        assertThat(DevicePluginTesting.cdiStatus(layer).get("removed").toString()).contains(spec.toString(),
                "removed from the configuration");
    }

    @Test
    void anEditThatKeepsCdiOnKeepsTheSpecAndOneThatTurnsItOffDropsItOnceReleased() throws Exception {
        Path spec = cdi.resolve("rdmanode.io-hca_hca_a.json");
        SharedPoolDevicePlugin a = activate("hca_a");
        kubelet.awaitRegistrations("rdma/hca_a", 1, WAIT);

        a.stop(ServedPool.CONFIGURATION_MODIFIED);
        a = activate("hca_a");
        Thread.sleep(1000);
        assertThat(spec).exists();

        a.stop(ServedPool.CONFIGURATION_MODIFIED);
        new SharedPoolDevicePlugin(Pools.config("hca_a", "rdmaHcaMax", 3, "selectors.vendors",
                new String[] {"15b3"}), discovery, kubelet.host(), layer, registry, dir.resolve("node"));
        Awaitility.await().atMost(WAIT).untilAsserted(() -> assertThat(spec).doesNotExist());
    }
}
