// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.rdmanode.agent.LogText;
import io.rdmanode.agent.RefusalLog;
import io.rdmanode.kubelet.DevicePlugin;
import io.rdmanode.kubelet.DevicePluginException;
import io.rdmanode.kubelet.internal.v1beta1.AllocateRequest;
import io.rdmanode.kubelet.internal.v1beta1.AllocateResponse;
import io.rdmanode.kubelet.internal.v1beta1.ContainerAllocateRequest;
import io.rdmanode.kubelet.internal.v1beta1.ContainerPreferredAllocationRequest;
import io.rdmanode.kubelet.internal.v1beta1.ContainerPreferredAllocationResponse;
import io.rdmanode.kubelet.internal.v1beta1.DevicePluginGrpc;
import io.rdmanode.kubelet.internal.v1beta1.DevicePluginOptions;
import io.rdmanode.kubelet.internal.v1beta1.Empty;
import io.rdmanode.kubelet.internal.v1beta1.ListAndWatchResponse;
import io.rdmanode.kubelet.internal.v1beta1.PreStartContainerRequest;
import io.rdmanode.kubelet.internal.v1beta1.PreStartContainerResponse;
import io.rdmanode.kubelet.internal.v1beta1.PreferredAllocationRequest;
import io.rdmanode.kubelet.internal.v1beta1.PreferredAllocationResponse;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Answers the {@code v1beta1.DevicePlugin} RPCs of one resource by asking its {@link DevicePlugin}; nothing else. */
final class DevicePluginService extends DevicePluginGrpc.DevicePluginImplBase {

    private static final Logger LOG = LoggerFactory.getLogger(DevicePluginService.class);
    /** One line per resource and kind a minute: a client retrying an unknown ID in a loop wrote 62 MB of WARN. */
    private static final RefusalLog REFUSALS = new RefusalLog(LOG, Duration.ofMinutes(1));

    private final DevicePlugin plugin;
    private final ListAndWatchStreams streams;
    private final ResourceStats stats;
    private final String resource;

    private final Object pushLock;

    DevicePluginService(DevicePlugin plugin, ListAndWatchStreams streams, ResourceStats stats) {
        this(plugin, streams, stats, new Object());
    }

    /**
     * @param pushLock the lock under which the server reads the device list and pushes it to the streams: a stream
     *                 opens under it too, so that it never starts with a list older than a push it missed
     */
    DevicePluginService(DevicePlugin plugin, ListAndWatchStreams streams, ResourceStats stats, Object pushLock) {
        this.plugin = plugin;
        this.streams = streams;
        this.stats = stats;
        this.resource = plugin.resourceName();
        this.pushLock = pushLock;
    }

    @Override
    public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> out) {
        out.onNext(ProtoMapping.options(plugin.options()));
        out.onCompleted();
    }

    @Override
    public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> out) {
        // Read and sent under the push lock: read outside it, a change pushed between the read and the open reached
        // the streams before this one joined them, and this stream began with the older list and kept it until the
        // next change (a device held for a DRA claim stayed healthy for kubelet).
        ListAndWatchResponse current;
        synchronized (pushLock) {
            current = ProtoMapping.devices(plugin.devices());
            streams.open(out, current);
        }
        LOG.debug("ListAndWatch opened resource={} devices={}", resource, current.getDevicesCount());
        stats.listAndWatchUpdates.increment();
    }

    @Override
    public void getPreferredAllocation(PreferredAllocationRequest request,
                                       StreamObserver<PreferredAllocationResponse> out) {
        PreferredAllocationResponse.Builder response = PreferredAllocationResponse.newBuilder();
        for (ContainerPreferredAllocationRequest r : request.getContainerRequestsList()) {
            if (r.getAllocationSize() < 0 || r.getAllocationSize() > r.getAvailableDeviceIDsCount()) {
                fail(out, Status.INVALID_ARGUMENT, "allocation size " + r.getAllocationSize() + " for resource "
                        + resource + " is outside 0.." + r.getAvailableDeviceIDsCount() + " available devices");
                return;
            }
            if (r.getMustIncludeDeviceIDsCount() > r.getAllocationSize()) {
                fail(out, Status.INVALID_ARGUMENT, r.getMustIncludeDeviceIDsCount()
                        + " must-include devices exceed allocation size " + r.getAllocationSize() + " for resource "
                        + resource);
                return;
            }
            List<String> ids;
            try {
                ids = plugin.preferredAllocation(r.getAvailableDeviceIDsList(), r.getMustIncludeDeviceIDsList(),
                        r.getAllocationSize());
            } catch (DevicePluginException e) {
                REFUSALS.warn("preferred:" + resource + ":" + e.code(), "GetPreferredAllocation refused resource={}: {}",
                        resource, LogText.escape(e.getMessage()));
                fail(out, status(e.code()), e.getMessage());
                return;
            } catch (RuntimeException e) {
                // A plugin bug answers INTERNAL, as in Allocate; thrown to gRPC it would be an undescribed UNKNOWN.
                LOG.error("GetPreferredAllocation failed resource={}", resource, e);
                fail(out, Status.INTERNAL, "preferred allocation failed for resource " + resource + ": "
                        + e.getMessage());
                return;
            }
            response.addContainerResponses(ContainerPreferredAllocationResponse.newBuilder().addAllDeviceIDs(ids));
        }
        out.onNext(response.build());
        out.onCompleted();
    }

    @Override
    public void allocate(AllocateRequest request, StreamObserver<AllocateResponse> out) {
        long start = System.nanoTime();
        try {
            if (request.getContainerRequestsCount() == 0) {
                throw new DevicePluginException(DevicePluginException.Code.INVALID_ARGUMENT, resource,
                        "allocate request for resource " + resource + " has no container requests");
            }
            AllocateResponse.Builder response = AllocateResponse.newBuilder();
            for (ContainerAllocateRequest r : request.getContainerRequestsList()) {
                if (r.getDevicesIdsCount() == 0) {
                    throw new DevicePluginException(DevicePluginException.Code.INVALID_ARGUMENT, resource,
                            "allocate request for resource " + resource + " names no device ids");
                }
                response.addContainerResponses(ProtoMapping.allocation(plugin.allocate(r.getDevicesIdsList())));
            }
            if (LOG.isDebugEnabled()) {
                LOG.debug("Allocate resource={} ids={}", resource, LogText.escape(request.getContainerRequestsList()
                        .stream().map(ContainerAllocateRequest::getDevicesIdsList).toList().toString()));
            }
            stats.allocations.add(request.getContainerRequestsCount());
            out.onNext(response.build());
            out.onCompleted();
        } catch (DevicePluginException e) {
            stats.allocationFailures.increment();
            REFUSALS.warn("allocate:" + resource + ":" + e.code(), "Allocate refused resource={}: {}", resource,
                    LogText.escape(e.getMessage()));
            fail(out, status(e.code()), e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("Allocate failed resource={}", resource, e);
            stats.allocationFailures.increment();
            fail(out, Status.INTERNAL, "allocate failed for resource " + resource + ": " + e.getMessage());
        } finally {
            stats.observeAllocate(System.nanoTime() - start);
        }
    }

    @Override
    public void preStartContainer(PreStartContainerRequest request, StreamObserver<PreStartContainerResponse> out) {
        try {
            plugin.preStartContainer(request.getDevicesIdsList());
            out.onNext(PreStartContainerResponse.getDefaultInstance());
            out.onCompleted();
        } catch (DevicePluginException e) {
            REFUSALS.warn("prestart:" + resource + ":" + e.code(), "PreStartContainer refused resource={}: {}",
                    resource, LogText.escape(e.getMessage()));
            fail(out, status(e.code()), e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("PreStartContainer failed resource={}", resource, e);
            fail(out, Status.INTERNAL, "pre-start failed for resource " + resource + ": " + e.getMessage());
        }
    }

    static Status status(DevicePluginException.Code code) {
        return switch (code) {
            case INVALID_ARGUMENT -> Status.INVALID_ARGUMENT;
            case NOT_FOUND -> Status.NOT_FOUND;
            case FAILED_PRECONDITION -> Status.FAILED_PRECONDITION;
            case UNAVAILABLE -> Status.UNAVAILABLE;
        };
    }

    private static void fail(StreamObserver<?> out, Status status, String description) {
        out.onError(status.withDescription(description).asRuntimeException());
    }
}
