// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.DevicePlugin;
import io.rdmanode.kubelet.DevicePluginException;
import io.rdmanode.kubelet.internal.v1beta1.AllocateRequest;
import io.rdmanode.kubelet.internal.v1beta1.ContainerAllocateRequest;
import io.rdmanode.kubelet.internal.v1beta1.ContainerAllocateResponse;
import io.rdmanode.kubelet.internal.v1beta1.ContainerPreferredAllocationRequest;
import io.rdmanode.kubelet.internal.v1beta1.DeviceSpec;
import io.rdmanode.kubelet.internal.v1beta1.PreStartContainerRequest;
import io.rdmanode.kubelet.internal.v1beta1.PreferredAllocationRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code v1beta1.DevicePlugin} handlers of {@link DevicePluginService}, called on the service object (no
 * socket) with Allocate, GetPreferredAllocation and PreStartContainer requests of arbitrary IDs and counts, over a
 * plugin of four devices that refuses unknown IDs as the pools do, and that now and then fails as a buggy pool
 * would (a {@link DevicePluginException} of any code, or an unchecked exception). Contract: every call ends with
 * exactly one answer or one {@link StatusRuntimeException} with a described status other than UNKNOWN; nothing
 * is thrown to gRPC; an Allocate answer names only the pool's device nodes.
 * Corpus: {@code src/test/resources/io/rdmanode/kubelet/internal/DevicePluginServiceFuzzTestInputs/answers/}.
 */
class DevicePluginServiceFuzzTest {

    private static final List<String> POOL = List.of("hca-0", "hca-1", "hca-2", "hca-3");
    private static final Set<String> POOL_NODES = Set.of("/dev/infiniband/uverbs0", "/dev/infiniband/uverbs1",
            "/dev/infiniband/uverbs2", "/dev/infiniband/uverbs3");
    private static final Pool PLUGIN = new Pool();
    private static final DevicePluginService SERVICE = new DevicePluginService(PLUGIN, new ListAndWatchStreams(),
            new ResourceStats());

    @FuzzTest
    void answers(FuzzedDataProvider data) {
        PLUGIN.failure = switch (data.consumeInt(0, 7)) {
            case 0 -> new DevicePluginException(data.pickValue(DevicePluginException.Code.values()),
                    "rdma/hca", "pool refused: " + data.consumeString(32));
            case 1 -> new IllegalStateException("pool bug: " + data.consumeString(32));
            default -> null;
        };
        Recorder<Object> out = new Recorder<>();
        switch (data.consumeInt(0, 2)) {
            case 0 -> {
                AllocateRequest.Builder r = AllocateRequest.newBuilder();
                int containers = data.consumeInt(0, 4);
                for (int i = 0; i < containers; i++) {
                    r.addContainerRequests(ContainerAllocateRequest.newBuilder().addAllDevicesIds(ids(data)));
                }
                SERVICE.allocate(r.build(), out.typed());
            }
            case 1 -> {
                PreferredAllocationRequest.Builder r = PreferredAllocationRequest.newBuilder();
                int containers = data.consumeInt(0, 3);
                for (int i = 0; i < containers; i++) {
                    r.addContainerRequests(ContainerPreferredAllocationRequest.newBuilder()
                            .addAllAvailableDeviceIDs(ids(data)).addAllMustIncludeDeviceIDs(ids(data))
                            .setAllocationSize(data.consumeBoolean() ? data.consumeInt() : data.consumeInt(0, 8)));
                }
                SERVICE.getPreferredAllocation(r.build(), out.typed());
            }
            default -> SERVICE.preStartContainer(PreStartContainerRequest.newBuilder().addAllDevicesIds(ids(data))
                    .build(), out.typed());
        }

        assertThat(out.completed + (out.error != null ? 1 : 0)).as("terminal signals").isEqualTo(1);
        if (out.error != null) {
            assertThat(out.error).isInstanceOf(StatusRuntimeException.class);
            Status s = ((StatusRuntimeException) out.error).getStatus();
            assertThat(s.getCode()).isNotIn(Status.Code.OK, Status.Code.UNKNOWN);
            assertThat(s.getDescription()).isNotBlank();
            return;
        }
        assertThat(out.values).hasSize(1);
        if (out.values.get(0) instanceof io.rdmanode.kubelet.internal.v1beta1.AllocateResponse a) {
            for (ContainerAllocateResponse c : a.getContainerResponsesList()) {
                assertThat(c.getDevicesList()).extracting(DeviceSpec::getHostPath).isSubsetOf(POOL_NODES);
            }
        }
    }

    private static List<String> ids(FuzzedDataProvider data) {
        int n = data.consumeInt(0, 16);
        List<String> ids = new ArrayList<>(n);
        for (int i = 0; i < n && data.remainingBytes() > 0; i++) {
            ids.add(data.consumeBoolean() ? POOL.get(data.consumeInt(0, POOL.size() - 1)) : data.consumeString(64));
        }
        return ids;
    }

    /** Four devices; unknown IDs refused with INVALID_ARGUMENT; {@link #failure} thrown by the next call. */
    private static final class Pool implements DevicePlugin {
        volatile RuntimeException failure;

        @Override
        public String resourceName() {
            return "rdma/hca";
        }

        @Override
        public List<Device> devices() {
            return POOL.stream().map(id -> new Device(id, true, List.of())).toList();
        }

        @Override
        public List<String> preferredAllocation(List<String> available, List<String> mustInclude, int size) {
            fail();
            return DevicePlugin.super.preferredAllocation(available.stream().filter(POOL::contains).toList(),
                    mustInclude.stream().filter(POOL::contains).toList(), size);
        }

        @Override
        public ContainerAllocation allocate(List<String> deviceIds) {
            fail();
            List<String> unknown = deviceIds.stream().filter(id -> !POOL.contains(id)).toList();
            if (!unknown.isEmpty()) {
                throw new DevicePluginException(DevicePluginException.Code.INVALID_ARGUMENT, "rdma/hca",
                        "unknown device id(s) " + unknown.size() + " for resource rdma/hca");
            }
            return new ContainerAllocation(Map.of(), List.of(), deviceIds.stream().map(id -> new DeviceNode(
                    "/dev/infiniband/uverbs" + id.substring(4), "/dev/infiniband/uverbs" + id.substring(4), "rw"))
                    .toList(), Map.of(), List.of());
        }

        @Override
        public void preStartContainer(List<String> deviceIds) {
            fail();
        }

        private void fail() {
            RuntimeException f = failure;
            if (f != null) {
                throw f;
            }
        }
    }

    /** A response observer that records what the service sends. */
    private static final class Recorder<T> implements StreamObserver<T> {
        final List<T> values = new ArrayList<>();
        Throwable error;
        int completed;

        @Override
        public void onNext(T value) {
            values.add(value);
        }

        @Override
        public void onError(Throwable t) {
            error = t;
        }

        @Override
        public void onCompleted() {
            completed++;
        }

        @SuppressWarnings("unchecked")
        <U> StreamObserver<U> typed() {
            return (StreamObserver<U>) this;
        }
    }
}
