// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.testing.RecordedHostDiscovery;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePlugin;
import io.rdmanode.kubelet.DevicePluginException;
import io.rdmanode.kubelet.DevicePluginHost;
import io.rdmanode.kubelet.ResourceFigures;
import io.rdmanode.kubelet.ServedResource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Allocate, GetPreferredAllocation and PreStartContainer requests with arbitrary IDs and counts, answered by the
 * layer's served pool (the object the device-plugin host's gRPC service calls; no socket here) over the recorded
 * cx5-roce-sriov host, a per-VF pool of four VFs. Contract: an answer only ever names the pool's devices
 * (Allocate: only the pool's device files; a preferred allocation: exactly {@code size} distinct offered IDs with
 * every must-include one); anything else is a {@link DevicePluginException} (which the service turns into a gRPC
 * status) with a code and a message naming the resource; no other exception escapes.
 * Corpus: {@code src/test/resources/io/rdmanode/deviceplugin/DevicePluginRequestFuzzTestInputs/answers/}.
 */
class DevicePluginRequestFuzzTest {

    private static final String RESOURCE = "example.com/vfs";
    private static final List<String> POOL = List.of("0000:3b:00.2", "0000:3b:00.3", "0000:3b:00.4",
            "0000:3b:00.5");
    private static final Capture HOST = new Capture();
    private static final DevicePlugin PLUGIN = serve();
    private static final Set<String> POOL_FILES = poolFiles();

    @FuzzTest
    void answers(FuzzedDataProvider data) {
        int call = data.consumeInt(0, 2);
        try {
            switch (call) {
                case 0 -> {
                    List<String> ids = ids(data);
                    ContainerAllocation a = PLUGIN.allocate(ids);
                    assertThat(POOL).containsAll(ids);
                    assertThat(a.devices()).extracting(DeviceNode::hostPath).isSubsetOf(POOL_FILES);
                }
                case 1 -> {
                    int size = data.consumeBoolean() ? data.consumeInt() : data.consumeInt(0, 8);
                    List<String> mustInclude = ids(data);
                    List<String> available = ids(data);
                    List<String> preferred = PLUGIN.preferredAllocation(available, mustInclude, size);
                    assertThat(preferred).doesNotHaveDuplicates().hasSize(size).isSubsetOf(available)
                            .containsAll(mustInclude);
                }
                default -> PLUGIN.preStartContainer(ids(data));
            }
        } catch (DevicePluginException e) {
            assertThat(e.code()).isNotNull();
            assertThat(e.getMessage()).isNotBlank().contains(RESOURCE);
        }
    }

    /** Up to 64 IDs: the pool's, near misses of them, or anything (empty, huge, control characters). */
    private static List<String> ids(FuzzedDataProvider data) {
        int n = data.consumeInt(0, 64);
        List<String> ids = new ArrayList<>(n);
        for (int i = 0; i < n && data.remainingBytes() > 0; i++) {
            ids.add(switch (data.consumeInt(0, 2)) {
                case 0 -> POOL.get(data.consumeInt(0, POOL.size() - 1));
                case 1 -> POOL.get(data.consumeInt(0, POOL.size() - 1)) + data.consumeString(4);
                default -> data.consumeString(data.consumeBoolean() ? 16 : 4096);
            });
        }
        return ids;
    }

    private static DevicePlugin serve() {
        try {
            Path dir = Files.createTempDirectory("dp-fuzz-");
            dir.toFile().deleteOnExit();
            RecordedHostDiscovery discovery = RecordedHostDiscovery.unpack("cx5-roce-sriov", dir.resolve("host"));
            io.rdmanode.deviceplugin.internal.Layer layer = new io.rdmanode.deviceplugin.internal.Layer(
                    new LayerSettings(new DevicePaths(Path.of("/host-root/dev")), List.of()));
            layer.serve(new VfPool(layer), discovery, HOST);
            return HOST.plugin;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every host path an allocation of the whole pool hands out. */
    private static Set<String> poolFiles() {
        assertThat(PLUGIN.devices()).extracting(Device::id).containsExactlyElementsOf(POOL);
        Set<String> files = new HashSet<>();
        PLUGIN.allocate(POOL).devices().forEach(d -> files.add(d.hostPath()));
        return Set.copyOf(files);
    }

    /** The device-plugin host as the layer sees it, keeping the plugin instead of serving it on a socket. */
    private static final class Capture implements DevicePluginHost {
        volatile DevicePlugin plugin;

        @Override
        public ServedResource serve(DevicePlugin p) {
            plugin = p;
            return new ServedResource() {
                @Override
                public String resourceName() {
                    return p.resourceName();
                }

                @Override
                public Path socket() {
                    return Path.of("/nonexistent/fuzz.sock");
                }

                @Override
                public boolean registered() {
                    return true;
                }

                @Override
                public void devicesChanged() {
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public List<ResourceFigures> figures() {
            return List.of();
        }
    }

    /** One ID per selected VF of ens1f0 (its PCI address), as in ServedPoolTest; an exclusive pool. */
    private static final class VfPool implements ResourcePool {
        private final io.rdmanode.deviceplugin.internal.Layer layer;
        private final Selectors selectors = new Selectors(List.of(), List.of(), List.of(), List.of(), List.of(),
                Selectors.pfSelectors("pfNames", List.of("ens1f0#0-3")), List.of(), List.of(), Optional.of(true));

        VfPool(io.rdmanode.deviceplugin.internal.Layer layer) {
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
            Selection s = selectors.select(layer.candidates(host, Granularity.VF));
            List<Device> devices = new ArrayList<>();
            for (CandidateDevice c : s.matched()) {
                devices.add(new Device(c.key(), c.health().usable(),
                        c.numaNode().map(n -> List.of(n.longValue())).orElse(List.of())));
            }
            return new PoolView(host.revision(), devices, s, Map.of(), !devices.isEmpty(), "", Map.of());
        }

        @Override
        public ContainerAllocation allocate(PoolView view, List<String> ids) {
            Map<String, CandidateDevice> byKey = view.selection().byKey();
            List<DeviceFile> files = new ArrayList<>();
            for (String id : ids) {
                CandidateDevice c = byKey.get(id);
                if (c == null) {
                    throw new DevicePluginException(DevicePluginException.Code.INVALID_ARGUMENT, RESOURCE,
                            "unknown VF " + id + " for resource " + RESOURCE);
                }
                files.addAll(c.deviceFiles());
            }
            return new ContainerAllocation(Map.of(), List.of(), layer.paths().nodes(files, "rw"), Map.of(),
                    List.of());
        }
    }
}
