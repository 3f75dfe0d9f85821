// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.testing;

import io.rdmanode.kubelet.internal.FakeKubelet;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The kubelet double alone, for tests of a whole agent (the built distribution) that watch what kubelet sees:
 * a real Registration gRPC server on {@code <pluginDir>/kubelet.sock} that counts registrations per resource and
 * opens a ListAndWatch stream to each plugin that registers, in plain types only. Like kubelet it admits
 * containers ({@link #admit}: GetPreferredAllocation when offered, then Allocate with IDs its own book holds under
 * no pod <em>for that resource name</em>), keeps {@code kubelet_internal_checkpoint} in the directory, serves
 * the pod-resources API ({@link #servePodResources}) and, on {@link #restart()}, deletes every file in the
 * directory but its checkpoint.
 */
public final class KubeletDouble implements AutoCloseable {

    private final FakeKubelet kubelet;
    private final Path pluginDir;
    private volatile Path podResourcesSocket;

    private KubeletDouble(Path pluginDir) {
        this.pluginDir = pluginDir;
        this.kubelet = new FakeKubelet(pluginDir).start();
    }

    /** Listens on {@code pluginDir/kubelet.sock} (keep the path short: 107 usable bytes). */
    public static KubeletDouble start(Path pluginDir) {
        return new KubeletDouble(pluginDir);
    }

    /**
     * Listens on {@code pluginDir/kubelet.sock} and serves kubelet's pod-resources API ({@code v1.PodResourcesLister})
     * on {@code podResourcesSocket}.
     */
    public static KubeletDouble start(Path pluginDir, Path podResourcesSocket) {
        KubeletDouble d = new KubeletDouble(pluginDir);
        d.servePodResources(podResourcesSocket);
        return d;
    }

    /** Serves the pod-resources API on {@code socket} from now on (again after each {@link #restart()}). */
    public void servePodResources(Path socket) {
        podResourcesSocket = socket;
        kubelet.servePodResources(socket);
    }

    /**
     * The agent's real {@code PodDevices} client pointed at this kubelet (its pod-resources socket and its
     * checkpoint); close it after use.
     */
    public PodDevicesClient podDevices() {
        if (podResourcesSocket == null) {
            throw new IllegalStateException("the double serves no pod-resources socket: start(pluginDir, socket)");
        }
        return PodDevicesClient.open(podResourcesSocket, pluginDir);
    }

    /** The pod-resources API stops and its socket goes (kubelet's device-plugin side stays). */
    public void stopPodResources() {
        kubelet.stopPodResources();
    }

    /** The pod-resources API answers again, on the socket given before. */
    public void startPodResources() {
        kubelet.startPodResources();
    }

    /**
     * Admits container {@code container} of pod {@code namespace/pod} asking for {@code count} devices of
     * {@code resource}, as kubelet does; returns the device IDs Allocate was called with.
     *
     * @throws IllegalStateException when too few healthy IDs are free in kubelet's book, or the plugin fails
     */
    public List<String> admit(String namespace, String pod, String container, String resource, int count) {
        return kubelet.admit(namespace, pod, container, resource, count);
    }

    /** The pod ends: kubelet frees its devices. Returns how many it held. */
    public int remove(String namespace, String pod) {
        return kubelet.remove(namespace, pod);
    }

    /** IDs of {@code resource} kubelet's book holds for some pod. */
    public Set<String> held(String resource) {
        return kubelet.deviceManager().held(resource);
    }

    /** The UID kubelet gave pod {@code namespace/pod} (the checkpoint names pods by UID), null if none. */
    public String podUid(String namespace, String pod) {
        return kubelet.deviceManager().podUid(namespace, pod);
    }

    /** kubelet's device-manager checkpoint, {@code pluginDir/kubelet_internal_checkpoint}. */
    public Path checkpoint() {
        return kubelet.deviceManager().checkpoint();
    }

    /**
     * kubelet restarts: it stops, deletes every file in the directory but its checkpoint (the plugins' sockets
     * too), and starts with a new {@code kubelet.sock}; the book (read back from the checkpoint by a real
     * kubelet) stays.
     */
    public void restart() {
        kubelet.restart();
    }

    /** kubelet dies: nothing answers, the socket files stay (a pod-resources call gets "connection refused"). */
    public void kill() {
        kubelet.kill();
    }

    /**
     * {@code Register} calls for {@code resource} fail from now on with INVALID_ARGUMENT and {@code reason}, as
     * kubelet's own checks refuse a plugin; {@link #accept} undoes it.
     */
    public void refuse(String resource, String reason) {
        kubelet.refuse(resource, reason);
    }

    /**
     * {@code Register} calls for {@code resource} arrive but get no answer until {@link #release} (a kubelet busy
     * elsewhere); the resource's calls go on to the endpoint registered before.
     */
    public void hold(String resource) {
        kubelet.hold(resource);
    }

    /** {@code Register} calls for {@code resource} are answered again, a held one at once. */
    public void release(String resource) {
        kubelet.release(resource);
    }

    /** {@code Register} calls for {@code resource} are accepted again. */
    public void accept(String resource) {
        kubelet.accept(resource);
    }

    /** Registrations of {@code resource} so far. */
    public long registrations(String resource) {
        return kubelet.registrations(resource);
    }

    /**
     * Behaves as kubelet before 1.35 (kubernetes#121994): when the stream of an endpoint a newer registration
     * replaced ends, the resource's newest endpoint is disconnected too, until the plugin registers again.
     */
    public void dropNewestWhenReplacedStreamEnds(boolean drop) {
        kubelet.dropNewestWhenReplacedStreamEnds(drop);
    }

    /** Whether kubelet holds an endpoint for {@code resource} now (else it refuses admissions itself). */
    public boolean hasEndpoint(String resource) {
        return kubelet.hasPlugin(resource);
    }

    /**
     * The endpoint (socket file name) kubelet holds for {@code resource} now: its newest registration.
     *
     * @throws AssertionError when no plugin registered the resource
     */
    public String endpoint(String resource) {
        kubelet.plugin(resource);
        List<FakeKubelet.Registration> all = kubelet.registrations();
        for (int i = all.size() - 1; i >= 0; i--) {
            if (all.get(i).resource().equals(resource)) {
                return all.get(i).endpoint();
            }
        }
        throw new AssertionError("no registration of " + resource);
    }

    /**
     * GetDevicePluginOptions on the endpoint kubelet holds for {@code resource} now; whether the plugin offers
     * GetPreferredAllocation.
     */
    public boolean options(String resource) {
        return kubelet.plugin(resource).fetchOptions().getGetPreferredAllocationAvailable();
    }

    /**
     * GetPreferredAllocation for one container of {@code size} devices among the healthy IDs of the latest
     * ListAndWatch list that kubelet's book holds under no pod, on the endpoint kubelet holds for {@code resource}
     * now; the IDs the plugin prefers.
     */
    public List<String> preferred(String resource, int size) {
        Set<String> held = held(resource);                 // may wait for an admission: before the lookup
        FakeKubelet.PluginConnection plugin = kubelet.plugin(resource);
        List<String> free = plugin.latest(Duration.ofSeconds(5)).getDevicesList().stream()
                .filter(d -> d.getHealth().equals("Healthy")).map(d -> d.getID())
                .filter(id -> !held.contains(id)).toList();
        return plugin.preferred(free, List.of(), size).getContainerResponses(0).getDeviceIDsList();
    }

    /**
     * Admits a container as {@link #admit} does, through the endpoint that kubelet's newest registration of
     * {@code resource} replaced (its stream still open): an admission kubelet began before it switched.
     *
     * @throws IllegalStateException when there is no such endpoint, too few IDs are free, or the plugin fails
     */
    public List<String> admitOnReplaced(String namespace, String pod, String container, String resource, int count) {
        synchronized (kubelet.deviceManager()) {           // the book first, then the endpoint (see admit)
            FakeKubelet.PluginConnection replaced = kubelet.replacedPlugin(resource);
            if (replaced == null) {
                throw new IllegalStateException("no replaced endpoint of " + resource + " with an open stream");
            }
            return kubelet.deviceManager().admit(replaced, namespace, pod, container, resource, count);
        }
    }

    /** Registrations of every resource so far. */
    public int registrations() {
        return kubelet.registrations().size();
    }

    /** Waits until {@code resource} registered {@code count} times; returns the latest one's {@link System#nanoTime()}. */
    public long awaitRegistrations(String resource, long count, Duration timeout) {
        return kubelet.awaitRegistrations(resource, count, timeout).nanos();
    }

    /** The ListAndWatch stream of the plugin registered last for {@code resource}, once its first list came. */
    public Watch watch(String resource, Duration timeout) {
        FakeKubelet.PluginConnection plugin = kubelet.plugin(resource);
        plugin.latest(timeout);
        return () -> plugin.streamEnd() == null;
    }

    /**
     * The device IDs of every ListAndWatch list the plugin registered last for {@code resource} sent so far, in
     * order (healthy or not).
     */
    public List<List<String>> deviceLists(String resource) {
        return kubelet.plugin(resource).updates().stream()
                .map(u -> u.getDevicesList().stream().map(d -> d.getID()).toList()).toList();
    }

    @Override
    public void close() {
        kubelet.close();
    }

    /** One ListAndWatch stream, as kubelet holds it. */
    @FunctionalInterface
    public interface Watch {
        /** True while the plugin has neither ended nor failed the stream. */
        boolean open();
    }
}
