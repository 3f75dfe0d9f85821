// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import io.rdmanode.dra.internal.health.DRAResourceHealthGrpc;
import io.rdmanode.dra.internal.health.DeviceHealth;
import io.rdmanode.dra.internal.health.HealthStatus;
import io.rdmanode.dra.internal.health.NodeWatchResourcesRequest;
import io.rdmanode.dra.internal.health.NodeWatchResourcesResponse;
import io.rdmanode.kubelet.UnixSocketServers.UnixSocketServer;
import io.rdmanode.kubelet.testing.UnixSockets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** kubelet's NodeWatchResources stream over a real Unix socket, fed from the recorded host as it changes. */
class DeviceHealthServiceTest {

    @Test
    void aWatcherGetsTheWholeListThenTheChangeWhenAPortGoesDown() throws Exception {
        Path root = Files.createTempDirectory(Path.of("/tmp"), "drah-");
        UnixSockets.Servers servers = new UnixSockets.Servers();
        UnixSockets.Client kubelet = new UnixSockets.Client(1, "kubelet-health-io", Executors.newCachedThreadPool());
        try {
            RecordedHostDiscovery discovery = RecordedHostDiscovery.unpack("cx5-roce-sriov", root.resolve("host"));
            DeviceHealthService health = new DeviceHealthService(() -> "node-1", discovery.snapshot());
            UnixSocketServer server = servers.serve(root.resolve("dra.sock"), DraSockets.OWNER_ONLY, List.of(health));
            ManagedChannel ch = kubelet.dial(server.socket());
            Iterator<NodeWatchResourcesResponse> stream = DRAResourceHealthGrpc.newBlockingStub(ch)
                    .withDeadlineAfter(30, TimeUnit.SECONDS)
                    .nodeWatchResources(NodeWatchResourcesRequest.getDefaultInstance());

            Map<String, DeviceHealth> first = byName(stream.next());
            assertThat(first.keySet()).containsExactlyInAnyOrderElementsOf(NodeDevice.of(discovery.snapshot()).keySet());
            assertThat(first.values()).allMatch(h -> h.getDevice().getPoolName().equals("node-1")
                    && h.getLastUpdatedTime() > 0);
            String rdma = NodeDevice.of(discovery.snapshot()).get("pci-0000-3b-00-3").rdma().name();
            assertThat(first.get("pci-0000-3b-00-3").getHealth()).as("%s", first.get("pci-0000-3b-00-3"))
                    .isEqualTo(HealthStatus.HEALTHY);

            Path state = root.resolve("host/sys/class/infiniband/" + rdma + "/ports/1/state");
            Files.writeString(state, "1: DOWN\n");
            health.update(discovery.rescan());

            Map<String, DeviceHealth> second = byName(stream.next());
            assertThat(second.get("pci-0000-3b-00-3").getHealth()).isEqualTo(HealthStatus.UNHEALTHY);
            assertThat(second.get("pci-0000-3b-00-3").getMessage()).contains(rdma, "no port ACTIVE", "DOWN");
            assertThat(second.get("pci-0000-3b-00-2").getHealth())
                    .isEqualTo(first.get("pci-0000-3b-00-2").getHealth());
            health.close();
            assertThat(stream.hasNext()).isFalse();
            ch.shutdownNow();
            server.close();
        } finally {
            kubelet.close(2000);
            servers.stop();
            TestFiles.deleteTree(root);
        }
    }

    /** Two pools (ens1f0's VFs, ens2f0's VFs): each device under its pool, the PFs (in no pool) not reported. */
    @Test
    void eachDeviceIsReportedUnderItsPool() throws Exception {
        Path root = Files.createTempDirectory(Path.of("/tmp"), "drah-");
        UnixSockets.Servers servers = new UnixSockets.Servers();
        UnixSockets.Client kubelet = new UnixSockets.Client(1, "kubelet-health-io", Executors.newCachedThreadPool());
        try {
            RecordedHostDiscovery discovery = RecordedHostDiscovery.unpack("cx5-roce-sriov", root.resolve("host"));
            PoolDevices pools = new PoolDevices(PoolDevicesTest.twoPools("ens1f0#0-7", "ens2f0#0-7"),
                    () -> java.util.Optional.of(io.rdmanode.deviceplugin.testing.DevicePluginTesting.layer(
                            io.rdmanode.deviceplugin.LayerSettings.DEFAULT)));
            DeviceHealthService health = new DeviceHealthService(host -> {
                Map<String, String> poolOf = new java.util.HashMap<>();
                pools.byPool(host).forEach((pool, devices) -> devices.keySet().forEach(d -> poolOf.put(d, pool)));
                return poolOf;
            }, discovery.snapshot());
            UnixSocketServer server = servers.serve(root.resolve("dra.sock"), DraSockets.OWNER_ONLY, List.of(health));
            ManagedChannel ch = kubelet.dial(server.socket());
            Iterator<NodeWatchResourcesResponse> stream = DRAResourceHealthGrpc.newBlockingStub(ch)
                    .withDeadlineAfter(30, TimeUnit.SECONDS)
                    .nodeWatchResources(NodeWatchResourcesRequest.getDefaultInstance());

            Map<String, DeviceHealth> first = byName(stream.next());
            var byPool = pools.byPool(discovery.snapshot());
            assertThat(first).hasSize(16).doesNotContainKey("pci-0000-3b-00-0");
            byPool.forEach((pool, devices) -> devices.keySet().forEach(d ->
                    assertThat(first.get(d).getDevice().getPoolName()).as(d).isEqualTo(pool)));
            assertThat(first.get("pci-0000-3b-00-3").getDevice().getPoolName()).isEqualTo("vfs-a");

            String rdma = NodeDevice.of(discovery.snapshot()).get("pci-0000-3b-00-3").rdma().name();
            Files.writeString(root.resolve("host/sys/class/infiniband/" + rdma + "/ports/1/state"), "1: DOWN\n");
            health.update(discovery.rescan());
            DeviceHealth down = byName(stream.next()).get("pci-0000-3b-00-3");
            assertThat(down.getHealth()).isEqualTo(HealthStatus.UNHEALTHY);
            assertThat(down.getDevice().getPoolName()).isEqualTo("vfs-a");
            health.close();
            ch.shutdownNow();
            server.close();
        } finally {
            kubelet.close(2000);
            servers.stop();
            TestFiles.deleteTree(root);
        }
    }

    private static Map<String, DeviceHealth> byName(NodeWatchResourcesResponse r) {
        return r.getDevicesList().stream().collect(Collectors.toMap(h -> h.getDevice().getDeviceName(), h -> h));
    }
}
