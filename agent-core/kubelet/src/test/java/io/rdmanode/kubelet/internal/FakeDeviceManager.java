// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.rdmanode.kubelet.internal.podresources.AllocatableResourcesRequest;
import io.rdmanode.kubelet.internal.podresources.AllocatableResourcesResponse;
import io.rdmanode.kubelet.internal.podresources.ContainerDevices;
import io.rdmanode.kubelet.internal.podresources.ContainerResources;
import io.rdmanode.kubelet.internal.podresources.GetPodResourcesRequest;
import io.rdmanode.kubelet.internal.podresources.GetPodResourcesResponse;
import io.rdmanode.kubelet.internal.podresources.ListPodResourcesRequest;
import io.rdmanode.kubelet.internal.podresources.ListPodResourcesResponse;
import io.rdmanode.kubelet.internal.podresources.PodResources;
import io.rdmanode.kubelet.internal.podresources.PodResourcesListerGrpc;
import io.rdmanode.kubelet.internal.v1beta1.AllocateResponse;
import io.rdmanode.kubelet.internal.v1beta1.Device;
import io.rdmanode.kubelet.internal.v1beta1.ListAndWatchResponse;
import io.rdmanode.kubelet.internal.v1beta1.PreferredAllocationResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * kubelet's device manager, as far as a device plugin can tell: admits a container by picking free healthy IDs
 * (free in its own book, <em>per resource name</em>, as kubelet's book is), asking GetPreferredAllocation when
 * the plugin offers it (and keeping only preferred IDs that are free, as kubelet does), calling Allocate, then
 * recording the allocation and writing {@code kubelet_internal_checkpoint} in kubelet's format. Serves the book
 * as {@code v1.PodResourcesLister} (List, Get, GetAllocatableResources).
 */
public final class FakeDeviceManager {

    /** One container's devices of one resource; {@code numa} maps each ID to its NUMA node ({@code -1}: none). */
    public record Entry(String namespace, String pod, String podUid, String container, String resource,
                        List<String> ids, Map<String, Long> numa, byte[] allocResp) {
    }

    private final Path checkpoint;
    private final List<Entry> book = new ArrayList<>();                  // guarded by this
    private final Map<String, String> podUids = new LinkedHashMap<>();     // namespace/pod -> UID; guarded by this
    private final Map<String, List<String>> registered = new TreeMap<>(); // resource -> IDs; guarded by this

    public FakeDeviceManager(Path checkpoint) {
        this.checkpoint = checkpoint;
    }

    public Path checkpoint() {
        return checkpoint;
    }

    /**
     * Admits one container asking for {@code count} devices of {@code resource} from {@code plugin}; returns the
     * IDs the plugin was given in Allocate.
     *
     * @throws IllegalStateException when fewer than {@code count} healthy IDs are free, or the plugin fails
     */
    public synchronized List<String> admit(FakeKubelet.PluginConnection plugin, String namespace, String pod,
                                           String container, String resource, int count) {
        ListAndWatchResponse latest = plugin.latest(Duration.ofSeconds(5));
        Map<String, Long> numa = new LinkedHashMap<>();
        for (Device d : latest.getDevicesList()) {
            if (d.getHealth().equals("Healthy")) {
                numa.put(d.getID(), d.getTopology().getNodesCount() == 0 ? -1L : d.getTopology().getNodes(0).getID());
            }
        }
        registered.put(resource, latest.getDevicesList().stream().map(Device::getID).toList());
        Set<String> held = held(resource);
        List<String> available = numa.keySet().stream().filter(id -> !held.contains(id)).toList();
        if (available.size() < count) {
            throw new IllegalStateException("cannot admit " + namespace + "/" + pod + "/" + container + ": " + count
                    + " of " + resource + " requested, " + available.size() + " free " + available);
        }
        List<String> chosen = choose(plugin, available, count);
        AllocateResponse response;
        try {
            response = plugin.allocate(chosen);
        } catch (RuntimeException e) {
            throw new IllegalStateException("Allocate " + chosen + " of " + resource + " failed: " + e.getMessage(), e);
        }
        String uid = podUids.computeIfAbsent(namespace + "/" + pod, k -> UUID.randomUUID().toString());
        Map<String, Long> chosenNuma = new LinkedHashMap<>();
        chosen.forEach(id -> chosenNuma.put(id, numa.get(id)));
        book.add(new Entry(namespace, pod, uid, container, resource, chosen, chosenNuma,
                response.getContainerResponses(0).toByteArray()));
        writeCheckpoint();
        return chosen;
    }

    /**
     * Records that container {@code container} of {@code namespace/pod} holds {@code ids} of {@code resource}
     * without asking any plugin (pods admitted before the test began, e.g. for figures over many pods). The
     * checkpoint is written by the next {@link #writeCheckpoint()} (or admit, remove).
     */
    public synchronized void hold(String namespace, String pod, String container, String resource, List<String> ids) {
        String uid = podUids.computeIfAbsent(namespace + "/" + pod, k -> UUID.randomUUID().toString());
        Map<String, Long> numa = new LinkedHashMap<>();
        ids.forEach(id -> numa.put(id, -1L));
        book.add(new Entry(namespace, pod, uid, container, resource, List.copyOf(ids), numa, new byte[0]));
    }

    /** kubelet's devicesToAllocate: preferred IDs that are free, topped up from the free list in order. */
    private static List<String> choose(FakeKubelet.PluginConnection plugin, List<String> available, int count) {
        Set<String> chosen = new LinkedHashSet<>();
        if (plugin.options().getGetPreferredAllocationAvailable()) {
            PreferredAllocationResponse preferred = plugin.preferred(available, List.of(), count);
            for (String id : preferred.getContainerResponses(0).getDeviceIDsList()) {
                if (available.contains(id) && chosen.size() < count) {
                    chosen.add(id);
                }
            }
        }
        for (String id : available) {
            if (chosen.size() < count) {
                chosen.add(id);
            }
        }
        return List.copyOf(chosen);
    }

    /** The pod is gone: its devices are free again. Returns how many devices it held. */
    public synchronized int remove(String namespace, String pod) {
        int before = book.stream().mapToInt(e -> e.ids().size()).sum();
        book.removeIf(e -> e.namespace().equals(namespace) && e.pod().equals(pod));
        podUids.remove(namespace + "/" + pod);
        writeCheckpoint();
        return before - book.stream().mapToInt(e -> e.ids().size()).sum();
    }

    /** IDs of {@code resource} the book holds. */
    public synchronized Set<String> held(String resource) {
        Set<String> out = new LinkedHashSet<>();
        book.stream().filter(e -> e.resource().equals(resource)).forEach(e -> out.addAll(e.ids()));
        return out;
    }

    public synchronized List<Entry> entries() {
        return List.copyOf(book);
    }

    public synchronized String podUid(String namespace, String pod) {
        return podUids.get(namespace + "/" + pod);
    }

    /**
     * Writes the checkpoint as kubelet 1.20+ does (temporary file, then rename): NUMA node to IDs, AllocResp as
     * base64, Go's {@code null} for an empty entry list. The checksum is a stand-in (FNV-32a over the JSON of
     * {@code Data}), not kubelet's hash of Go's struct printing; readers do not verify it.
     */
    public synchronized void writeCheckpoint() {
        StringBuilder data = new StringBuilder("{\"PodDeviceEntries\":");
        if (book.isEmpty()) {
            data.append("null");
        } else {
            List<String> entries = new ArrayList<>();
            for (Entry e : book) {
                Map<Long, List<String>> byNode = new TreeMap<>();
                e.ids().forEach(id -> byNode.computeIfAbsent(e.numa().getOrDefault(id, -1L), n -> new ArrayList<>())
                        .add(id));
                List<String> nodes = new ArrayList<>();
                byNode.forEach((node, ids) -> nodes.add(quote(String.valueOf(node)) + ":" + array(ids)));
                entries.add("{\"PodUID\":" + quote(e.podUid()) + ",\"ContainerName\":" + quote(e.container())
                        + ",\"ResourceName\":" + quote(e.resource()) + ",\"DeviceIDs\":{" + String.join(",", nodes)
                        + "},\"AllocResp\":" + quote(Base64.getEncoder().encodeToString(e.allocResp())) + "}");
            }
            data.append('[').append(String.join(",", entries)).append(']');
        }
        List<String> devices = new ArrayList<>();
        registered.forEach((resource, ids) -> devices.add(quote(resource) + ":" + array(ids)));
        data.append(",\"RegisteredDevices\":{").append(String.join(",", devices)).append("}}");
        String json = "{\"Data\":" + data + ",\"Checksum\":" + fnv32a(data.toString()) + "}";
        try {
            Path tmp = checkpoint.resolveSibling(checkpoint.getFileName() + ".tmp");
            Files.writeString(tmp, json);
            Files.move(tmp, checkpoint, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String array(List<String> values) {
        return "[" + String.join(",", values.stream().map(FakeDeviceManager::quote).toList()) + "]";
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    private static long fnv32a(String s) {
        int h = 0x811c9dc5;
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x01000193;
        }
        return Integer.toUnsignedLong(h);
    }

    /** The book as {@code v1.PodResourcesLister}, pods in admission order. */
    public PodResourcesListerGrpc.PodResourcesListerImplBase service() {
        return new PodResourcesListerGrpc.PodResourcesListerImplBase() {
            @Override
            public void list(ListPodResourcesRequest request, StreamObserver<ListPodResourcesResponse> out) {
                out.onNext(ListPodResourcesResponse.newBuilder().addAllPodResources(pods().values()).build());
                out.onCompleted();
            }

            @Override
            public void get(GetPodResourcesRequest request, StreamObserver<GetPodResourcesResponse> out) {
                PodResources pod = pods().get(request.getPodNamespace() + "/" + request.getPodName());
                if (pod == null) {
                    out.onError(Status.NOT_FOUND.withDescription("pod " + request.getPodNamespace() + "/"
                            + request.getPodName() + " not found").asRuntimeException());
                    return;
                }
                out.onNext(GetPodResourcesResponse.newBuilder().setPodResources(pod).build());
                out.onCompleted();
            }

            @Override
            public void getAllocatableResources(AllocatableResourcesRequest request,
                                                StreamObserver<AllocatableResourcesResponse> out) {
                AllocatableResourcesResponse.Builder b = AllocatableResourcesResponse.newBuilder();
                synchronized (FakeDeviceManager.this) {
                    registered.forEach((resource, ids) -> b.addDevices(ContainerDevices.newBuilder()
                            .setResourceName(resource).addAllDeviceIds(ids)));
                }
                out.onNext(b.build());
                out.onCompleted();
            }
        };
    }

    private synchronized Map<String, PodResources> pods() {
        Map<String, Map<String, ContainerResources.Builder>> containers = new LinkedHashMap<>();
        for (Entry e : book) {
            containers.computeIfAbsent(e.namespace() + "/" + e.pod(), k -> new LinkedHashMap<>())
                    .computeIfAbsent(e.container(), c -> ContainerResources.newBuilder().setName(c))
                    .addDevices(ContainerDevices.newBuilder().setResourceName(e.resource()).addAllDeviceIds(e.ids()));
        }
        Map<String, PodResources> out = new LinkedHashMap<>();
        containers.forEach((key, byName) -> {
            int slash = key.indexOf('/');
            PodResources.Builder pod = PodResources.newBuilder().setNamespace(key.substring(0, slash))
                    .setName(key.substring(slash + 1));
            byName.values().forEach(pod::addContainers);
            out.put(key, pod.build());
        });
        return out;
    }
}
