// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaPort;
import io.rdmanode.dra.internal.health.DRAResourceHealthGrpc;
import io.rdmanode.dra.internal.health.DeviceHealth;
import io.rdmanode.dra.internal.health.DeviceIdentifier;
import io.rdmanode.dra.internal.health.HealthStatus;
import io.rdmanode.dra.internal.health.NodeWatchResourcesRequest;
import io.rdmanode.dra.internal.health.NodeWatchResourcesResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * kubelet's {@code v1alpha1.DRAResourceHealth}: each watcher gets the complete device list at once and again after
 * every discovery change that changes a device's health. A device is healthy when its uverbs node is there and a
 * port is ACTIVE; a device seen before and gone from the host (a VF removed, the PF's VF count lowered) stays in
 * the list as unhealthy, since kubelet would otherwise only learn it after its timeout. Updates are pushed from
 * the caller's thread (discovery's scan thread), without waiting for the streams. Each device is reported under
 * its pool (a device gone, under the pool it was last in); a device in no pool of the driver is not reported.
 */
final class DeviceHealthService extends DRAResourceHealthGrpc.DRAResourceHealthImplBase {

    private static final int MAX_MESSAGE = 1024;

    /** Each device's pool now (device name to pool name); devices in no pool are not reported. */
    private final Function<HostSnapshot, Map<String, String>> pools;
    /** The pool each device was last in: a device gone from the host is reported under it. */
    private final Map<String, String> poolOf = new java.util.HashMap<>();
    private final List<ServerCallStreamObserver<NodeWatchResourcesResponse>> watchers = new CopyOnWriteArrayList<>();
    private final Set<String> seen = new TreeSet<>();
    /** Device name to (pool, health, message): the last list sent, to send only changes. */
    private Map<String, List<String>> last = Map.of();
    private NodeWatchResourcesResponse current = NodeWatchResourcesResponse.getDefaultInstance();

    /** Every device of the host in one pool. */
    DeviceHealthService(Supplier<String> pool, HostSnapshot first) {
        this(host -> {
            Map<String, String> all = new LinkedHashMap<>();
            NodeDevice.of(host).keySet().forEach(name -> all.put(name, pool.get()));
            return all;
        }, first);
    }

    /**
     * @param pools each device's pool on a host (device name to pool name); may throw IllegalStateException when
     *              the pools cannot be told (their selectors need the device-plugin layer): the devices keep the
     *              pools they were last in, and devices never placed are not reported until they can be
     */
    DeviceHealthService(Function<HostSnapshot, Map<String, String>> pools, HostSnapshot first) {
        this.pools = pools;
        update(first);
    }

    @Override
    public void nodeWatchResources(NodeWatchResourcesRequest request,
                                   StreamObserver<NodeWatchResourcesResponse> answer) {
        ServerCallStreamObserver<NodeWatchResourcesResponse> stream =
                (ServerCallStreamObserver<NodeWatchResourcesResponse>) answer;
        stream.setOnCancelHandler(() -> watchers.remove(stream));
        synchronized (this) {
            stream.onNext(current);
            watchers.add(stream);
        }
    }

    /** Recomputes health from {@code host} and tells every watcher when anything changed. */
    synchronized void update(HostSnapshot host) {
        Map<String, NodeDevice> devices = NodeDevice.of(host);
        Map<String, String> placed = null;
        try {
            placed = pools.apply(host);
        } catch (IllegalStateException e) {
            // the pools cannot be told now: every device keeps its last pool
        }
        if (placed != null) {
            for (String name : devices.keySet()) {
                String pool = placed.get(name);
                if (pool != null) {
                    poolOf.put(name, pool);
                    seen.add(name);
                }
            }
        }
        Map<String, List<String>> next = new LinkedHashMap<>();
        for (String name : seen) {
            NodeDevice d = devices.get(name);
            String problem = d == null ? "no longer present on the node"
                    : placed != null && !placed.containsKey(name) ? "no longer in a pool of this driver" : problem(d);
            next.put(name, List.of(poolOf.get(name), problem.isEmpty() ? HealthStatus.HEALTHY.name()
                    : HealthStatus.UNHEALTHY.name(), problem));
        }
        if (next.equals(last)) {
            return;
        }
        last = next;
        long now = Instant.now().getEpochSecond();
        List<DeviceHealth> list = new ArrayList<>();
        next.forEach((name, h) -> list.add(DeviceHealth.newBuilder()
                .setDevice(DeviceIdentifier.newBuilder().setPoolName(h.get(0)).setDeviceName(name))
                .setHealth(HealthStatus.valueOf(h.get(1))).setLastUpdatedTime(now)
                .setMessage(h.get(2).length() > MAX_MESSAGE ? h.get(2).substring(0, MAX_MESSAGE) : h.get(2)).build()));
        current = NodeWatchResourcesResponse.newBuilder().addAllDevices(list).build();
        for (ServerCallStreamObserver<NodeWatchResourcesResponse> w : watchers) {
            if (w.isCancelled()) {
                watchers.remove(w);
            } else {
                w.onNext(current);
            }
        }
    }

    /** Empty when healthy, else why not, in words for the pod's status. */
    private static String problem(NodeDevice d) {
        if (d.problem().isPresent()) {
            return d.problem().get();
        }
        if (d.rdma().ports().stream().noneMatch(p -> p.state() == RdmaPort.PortState.ACTIVE)) {
            return d.rdma().name() + ": no port ACTIVE (" + d.rdma().ports().stream()
                    .map(p -> "port " + p.number() + " " + p.state()).toList() + ")";
        }
        return "";
    }

    /** Ends every stream (the driver stops): kubelet watches again when the driver is back. */
    void close() {
        for (ServerCallStreamObserver<NodeWatchResourcesResponse> w : watchers) {
            try {
                w.onCompleted();
            } catch (RuntimeException e) {
                // already cancelled
            }
        }
        watchers.clear();
    }
}
