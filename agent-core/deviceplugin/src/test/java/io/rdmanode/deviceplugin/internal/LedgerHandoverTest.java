// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmanode.deviceplugin.CandidateDevice;
import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.Granularity;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.deviceplugin.PoolView;
import io.rdmanode.deviceplugin.ResourcePool;
import io.rdmanode.deviceplugin.Selection;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePluginHost;
import io.rdmanode.kubelet.PodDevices;
import io.rdmanode.kubelet.PodDevicesException;
import io.rdmanode.kubelet.testing.KubeletTestbed;
import io.rdmanode.kubelet.testing.PluginClients;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The allocation ledger's one writer passes at a handover (issue 27), through the real sockets: a predecessor
 * records, a successor started beside it on the same state directory takes the resource over and keeps every
 * record, and an Allocate that still reaches the predecessor afterwards is served without writing the file.
 * kubelet's PodResources does not answer here, so only the file can carry the predecessor's records across.
 */
class LedgerHandoverTest {

    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final String RESOURCE = "example.com/vfs";
    private static final PodDevices NOT_ANSWERING = () -> {
        throw new PodDevicesException("pod-resources and checkpoint unavailable (test)", null);
    };

    @TempDir
    Path dir;
    private RecordedHostDiscovery discovery;
    private KubeletTestbed kubelet;
    private Path ledger;
    private final LayerSettings settings = new LayerSettings(new DevicePaths(Path.of("/host-root/dev")), List.of());

    @BeforeEach
    void start() {
        discovery = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir.resolve("host"));
        kubelet = KubeletTestbed.start(dir);
        ledger = dir.resolve("state/deviceplugin/allocations");
    }

    @AfterEach
    void stop() {
        kubelet.close();
    }

    private Layer agentLayer() {
        return new Layer(settings, ledger, NOT_ANSWERING, Duration.ofMillis(200));
    }

    private static List<String> ledgerIds(Path file) throws IOException {
        return AllocationLedger.read(file).stream().map(AllocationLedger.Entry::deviceId).sorted().toList();
    }

    @Test
    void theSuccessorKeepsThePredecessorsRecordsAndThePredecessorStopsWriting() throws Exception {
        Layer predecessor = agentLayer();
        predecessor.serve(new ExclusiveVfs(predecessor), discovery, kubelet.host());
        kubelet.awaitRegistrations(RESOURCE, 1, WAIT);

        Layer successor = agentLayer();                   // starts beside it: the file is empty yet
        // kubelet allocates through the predecessor's socket before the successor registers
        kubelet.plugin(RESOURCE).allocate(RESOURCE, List.of("0000:3b:00.2"));
        assertThat(ledgerIds(ledger)).containsExactly("0000:3b:00.2");

        DevicePluginHost successorHost = kubelet.newInstanceHost();
        successor.serve(new ExclusiveVfs(successor), discovery, successorHost);
        kubelet.awaitRegistrations(RESOURCE, 2, WAIT);    // kubelet switched to the successor's socket
        predecessor.handedOver();                        // the launcher passes the state directory

        List<ContainerAllocation> next = kubelet.plugin(RESOURCE).allocate(RESOURCE, List.of("0000:3b:00.3"));
        assertThat(next).hasSize(1);
        assertThat(ledgerIds(ledger)).containsExactly("0000:3b:00.2", "0000:3b:00.3");
        assertThat(successor.held()).containsKeys("0000:3b:00.2", "0000:3b:00.3");

        // An Allocate kubelet sent the predecessor before it switched: served, the file untouched.
        byte[] before = Files.readAllBytes(ledger);
        ExecutorService callbacks = Executors.newSingleThreadExecutor();
        try (PluginClients old = PluginClients.dial(kubelet.pluginSocket(RESOURCE), 1, 1, "late-", callbacks)) {
            old.allocateCall(0, "0000:3b:00.4").run();   // throws when refused
        } finally {
            callbacks.shutdownNow();
        }
        assertThat(predecessor.held()).containsKey("0000:3b:00.4");   // its own answers stay consistent
        predecessor.close();
        assertThat(Files.readAllBytes(ledger)).isEqualTo(before);

        // The successor's later records keep every earlier one.
        kubelet.plugin(RESOURCE).allocate(RESOURCE, List.of("0000:3b:00.5"));
        assertThat(ledgerIds(ledger)).containsExactly("0000:3b:00.2", "0000:3b:00.3", "0000:3b:00.5");
        successor.close();
    }

    /** What the predecessor recorded after the successor read the file is merged without any write of its own. */
    @Test
    void theSuccessorAdoptsLateRecordsWhenItTakesOver() throws Exception {
        Layer predecessor = agentLayer();
        predecessor.serve(new ExclusiveVfs(predecessor), discovery, kubelet.host());
        kubelet.awaitRegistrations(RESOURCE, 1, WAIT);
        Layer successor = agentLayer();
        kubelet.plugin(RESOURCE).allocate(RESOURCE, List.of("0000:3b:00.2"));
        predecessor.handedOver();

        successor.adoptLedger();

        assertThat(successor.held()).containsKey("0000:3b:00.2");
        predecessor.close();
        successor.close();
    }

    /** An exclusive pool of the recorded host's VFs of ens1f0. */
    private static final class ExclusiveVfs implements ResourcePool {
        private final DevicePluginLayer layer;

        ExclusiveVfs(DevicePluginLayer layer) {
            this.layer = layer;
        }

        @Override
        public String name() {
            return "vfs";
        }

        @Override
        public String resourceName() {
            return RESOURCE;
        }

        @Override
        public boolean exclusive() {
            return true;
        }

        @Override
        public PoolView compute(HostSnapshot host) {
            List<CandidateDevice> vfs = layer.candidates(host, Granularity.VF).stream()
                    .filter(c -> c.key().startsWith("0000:3b:00.")).toList();
            return new PoolView(host.revision(), vfs.stream().map(c -> new Device(c.key(), true, List.of()))
                    .toList(), new Selection(vfs, List.of()), Map.of(), true, "", Map.of());
        }

        @Override
        public ContainerAllocation allocate(PoolView view, List<String> ids) {
            return new ContainerAllocation(Map.of("VFS", String.join(",", ids)), List.of(), List.of(), Map.of(),
                    List.of());
        }
    }
}
