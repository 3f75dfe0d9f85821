// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.testing;

import io.grpc.StatusRuntimeException;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePluginException;
import io.rdmanode.kubelet.DevicePluginHost;
import io.rdmanode.kubelet.internal.CallLimits;
import io.rdmanode.kubelet.internal.FakeKubelet;
import io.rdmanode.kubelet.internal.HostSettings;
import io.rdmanode.kubelet.internal.KubeletDevicePluginHost;
import io.rdmanode.kubelet.internal.v1beta1.AllocateResponse;
import io.rdmanode.kubelet.internal.v1beta1.ListAndWatchResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

/**
 * The real device-plugin host against the kubelet double, for device-plugin bundles' tests, in the API's terms
 * only (no gRPC, protobuf or {@code internal} type in its signatures): serve a plugin through {@link #host()},
 * then look at it the way kubelet does — registrations, ListAndWatch lists, Allocate over the Unix socket. Keep
 * {@code dir} short (Unix socket paths have 107 usable bytes).
 */
public final class KubeletTestbed implements AutoCloseable {

    private final Path pluginDir;
    private final KubeletDevicePluginHost host;
    private final FakeKubelet kubelet;
    private Path podResourcesSocket;
    private final long timeoutMillis;
    private final List<KubeletDevicePluginHost> otherInstances = new java.util.concurrent.CopyOnWriteArrayList<>();

    private KubeletTestbed(Path pluginDir, long timeoutMillis, int ioThreads, CallLimits limits) throws IOException {
        this.pluginDir = pluginDir;
        this.timeoutMillis = timeoutMillis;
        this.host = new KubeletDevicePluginHost(new HostSettings(pluginDir, pluginDir.resolve("kubelet.sock"),
                timeoutMillis, timeoutMillis, 60_000, ioThreads), limits);
        this.kubelet = new FakeKubelet(pluginDir).start();
    }

    /** Starts host and kubelet with the device-plugins directory {@code dir/dp}. */
    public static KubeletTestbed start(Path dir) {
        return start(dir, 2000, 1);
    }

    /**
     * As {@link #start(Path)}, with the host's registration and shutdown timeouts and its event-loop threads
     * (benchmarks give it more room than tests).
     */
    public static KubeletTestbed start(Path dir, long timeoutMillis, int ioThreads) {
        return start(dir, timeoutMillis, ioThreads, CallLimits.DEFAULTS.callsPerResource());
    }

    /**
     * As {@link #start(Path, long, int)}, with the host admitting {@code callsPerResource} unary calls per resource
     * at once (twice that in all, as many ListAndWatch streams) instead of the shipped 8: for benchmarks with more
     * concurrent clients than kubelet ever has (it sends one call at a time per resource); past the shipped bound
     * every call over it would be refused with RESOURCE_EXHAUSTED and nothing would be measured.
     */
    public static KubeletTestbed start(Path dir, long timeoutMillis, int ioThreads, int callsPerResource) {
        CallLimits d = CallLimits.DEFAULTS;
        CallLimits limits = callsPerResource == d.callsPerResource() ? d : new CallLimits(d.callTimeout(),
                callsPerResource, Math.max(d.callsTotal(), 2 * callsPerResource),
                Math.max(d.streamsPerResource(), callsPerResource), d.messageCeiling());
        try {
            return new KubeletTestbed(Files.createDirectories(dir.resolve("dp")), timeoutMillis, ioThreads, limits);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public DevicePluginHost host() {
        return host;
    }

    /**
     * The device-plugin host of another agent instance on the same directory and kubelet (a successor, the new
     * pod of a surge upgrade): its sockets have names of its own, and kubelet serves a resource from its newest
     * registration. Closed with the testbed, or earlier by the caller (the instance stops).
     */
    public DevicePluginHost newInstanceHost() {
        try {
            KubeletDevicePluginHost other = new KubeletDevicePluginHost(new HostSettings(pluginDir,
                    pluginDir.resolve("kubelet.sock"), timeoutMillis, timeoutMillis, 60_000, 1));
            otherInstances.add(other);
            return other;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path pluginDir() {
        return pluginDir;
    }

    /**
     * kubelet's pod-resources API on {@code socket} from now on: what the admitted pods hold
     * ({@link #admit}), as the agent's ledger reconciles with it.
     */
    public void servePodResources(Path socket) {
        podResourcesSocket = socket;
        kubelet.servePodResources(socket);
    }

    /** The agent's real PodDevices client on this kubelet's pod-resources socket and checkpoint; close it after. */
    public PodDevicesClient podDevices() {
        if (podResourcesSocket == null) {
            throw new IllegalStateException("no pod-resources socket served: servePodResources(socket) first");
        }
        return PodDevicesClient.open(podResourcesSocket, pluginDir);
    }

    /**
     * Admits container {@code container} of pod {@code namespace/pod} asking for {@code count} devices of
     * {@code resource}, as kubelet does (preferred allocation, then Allocate with IDs its book per resource name
     * does not hold); returns the IDs.
     */
    public List<String> admit(String namespace, String pod, String container, String resource, int count) {
        return kubelet.admit(namespace, pod, container, resource, count);
    }

    /** The pod-resources API stops and its socket goes: the agent falls back to kubelet's checkpoint. */
    public void stopPodResources() {
        kubelet.stopPodResources();
    }

    /** The pod ends: kubelet frees its devices. Returns how many it held. */
    public int remove(String namespace, String pod) {
        return kubelet.remove(namespace, pod);
    }

    /** kubelet restarts: the sockets go, a new {@code kubelet.sock} comes. */
    public void restartKubelet() {
        kubelet.restart();
    }

    public long registrations(String resource) {
        return kubelet.registrations(resource);
    }

    /** Waits until kubelet saw {@code count} registrations of {@code resource}; returns the latest endpoint. */
    public String awaitRegistrations(String resource, long count, Duration timeout) {
        return kubelet.awaitRegistrations(resource, count, timeout).endpoint();
    }

    /**
     * As {@link #awaitRegistrations}, returning when ({@link System#nanoTime()}) kubelet received the latest
     * registration.
     */
    public long awaitRegistrationNanos(String resource, long count, Duration timeout) {
        return kubelet.awaitRegistrations(resource, count, timeout).nanos();
    }

    /** When ({@link System#nanoTime()}) the current kubelet created its {@code kubelet.sock}. */
    public long kubeletStartedNanos() {
        return kubelet.startedNanos();
    }

    /** The plugin socket of {@code resource} as the host names it (classic registration). */
    public Path pluginSocket(String resource) {
        return host.socketOf(resource).orElseThrow(() -> new IllegalStateException("resource " + resource
                + " is not served"));
    }

    public Plugin plugin(String resource) {
        return new Plugin(kubelet.plugin(resource));
    }

    @Override
    public void close() {
        otherInstances.forEach(KubeletDevicePluginHost::close);
        host.close();
        kubelet.close();
    }

    /** kubelet's side of one resource. */
    public static final class Plugin {
        private final FakeKubelet.PluginConnection connection;

        private Plugin(FakeKubelet.PluginConnection connection) {
            this.connection = connection;
        }

        /** The latest ListAndWatch list, waiting for the first. */
        public List<Device> latest(Duration timeout) {
            return devices(connection.latest(timeout));
        }

        /** Waits for a ListAndWatch list matching {@code condition}; returns it. */
        public List<Device> awaitDevices(Predicate<List<Device>> condition, Duration timeout) {
            return devices(connection.awaitUpdate(u -> condition.test(devices(u)), timeout));
        }

        /** ListAndWatch lists received on this connection so far. */
        public int updates() {
            return connection.updates().size();
        }

        /** Every ListAndWatch list received on this connection so far, in order. */
        public List<List<Device>> deviceLists() {
            return connection.updates().stream().map(Plugin::devices).toList();
        }

        /** When ({@link System#nanoTime()}) each ListAndWatch list arrived, in order. */
        public List<Long> updateNanos() {
            return connection.updateNanos();
        }

        /** The size in bytes of the latest ListAndWatch message as it went over the wire, waiting for the first. */
        public int latestWireSize(Duration timeout) {
            return connection.latest(timeout).getSerializedSize();
        }

        /** Whether the plugin said it answers GetPreferredAllocation. */
        public boolean preferredAllocationAvailable() {
            return connection.options().getGetPreferredAllocationAvailable();
        }

        /**
         * One GetPreferredAllocation for one container, as kubelet sends it; the ids the plugin prefers.
         *
         * @throws DevicePluginException with the gRPC status code and description the plugin answered
         */
        public List<String> preferred(String resource, List<String> available, List<String> mustInclude, int size) {
            try {
                return connection.preferred(available, mustInclude, size).getContainerResponses(0).getDeviceIDsList();
            } catch (StatusRuntimeException e) {
                throw pluginException(resource, e);
            }
        }

        /** Whether kubelet's ListAndWatch stream ended. */
        public boolean streamEnded() {
            return connection.streamEnd() != null;
        }

        /**
         * One Allocate with one container request per argument, as kubelet sends it, answered over the socket.
         *
         * @throws DevicePluginException with the gRPC status code and description the plugin answered
         */
        @SafeVarargs
        public final List<ContainerAllocation> allocate(String resource, List<String>... containers) {
            try {
                return allocations(connection.allocate(containers));
            } catch (StatusRuntimeException e) {
                throw pluginException(resource, e);
            }
        }

        private static DevicePluginException pluginException(String resource, StatusRuntimeException e) {
            DevicePluginException.Code code;
            try {
                code = DevicePluginException.Code.valueOf(e.getStatus().getCode().name());
            } catch (IllegalArgumentException notAPluginCode) {
                throw e;
            }
            return new DevicePluginException(code, resource, e.getStatus().getDescription(), e);
        }

        private static List<Device> devices(ListAndWatchResponse r) {
            return r.getDevicesList().stream().map(d -> new Device(d.getID(), d.getHealth().equals("Healthy"),
                    d.getTopology().getNodesList().stream().map(n -> n.getID()).toList())).toList();
        }

        private static List<ContainerAllocation> allocations(AllocateResponse r) {
            return r.getContainerResponsesList().stream().map(c -> new ContainerAllocation(c.getEnvsMap(),
                    c.getMountsList().stream().map(m -> new ContainerAllocation.Mount(m.getContainerPath(),
                            m.getHostPath(), m.getReadOnly())).toList(),
                    c.getDevicesList().stream().map(d -> new ContainerAllocation.DeviceNode(d.getContainerPath(),
                            d.getHostPath(), d.getPermissions())).toList(),
                    c.getAnnotationsMap(), c.getCdiDevicesList().stream().map(d -> d.getName()).toList())).toList();
        }
    }
}
