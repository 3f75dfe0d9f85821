// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.testing;

import io.grpc.ManagedChannel;
import io.rdmanode.kubelet.internal.UdsTransport;
import io.rdmanode.kubelet.internal.v1beta1.AllocateRequest;
import io.rdmanode.kubelet.internal.v1beta1.ContainerAllocateRequest;
import io.rdmanode.kubelet.internal.v1beta1.DevicePluginGrpc;
import io.rdmanode.kubelet.internal.v1beta1.Empty;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;

/**
 * Raw kubelet-side gRPC clients of one plugin socket, for device-plugin bundles' benchmarks: {@code connections}
 * channels over the real Unix-socket transport, and calls on them prepared in advance (request and stub built
 * once) so that a timed loop measures the RPC only. No gRPC or protobuf type in the signatures.
 */
public final class PluginClients implements AutoCloseable {

    private final UdsTransport transport;
    private final List<ManagedChannel> channels = new ArrayList<>();

    private PluginClients(Path socket, int connections, int ioThreads, String threadPrefix, Executor executor) {
        this.transport = new UdsTransport(ioThreads, threadPrefix, executor);
        for (int i = 0; i < connections; i++) {
            channels.add(transport.dial(socket));
        }
    }

    /** Dials {@code socket} {@code connections} times; gRPC callbacks run on {@code executor}. */
    public static PluginClients dial(Path socket, int connections, int ioThreads, String threadPrefix,
                                     Executor executor) {
        return new PluginClients(socket, connections, ioThreads, threadPrefix, executor);
    }

    public int connections() {
        return channels.size();
    }

    /** One blocking Allocate of one container asking for {@code deviceIds}, on connection {@code connection}. */
    public Runnable allocateCall(int connection, String... deviceIds) {
        AllocateRequest request = AllocateRequest.newBuilder().addContainerRequests(ContainerAllocateRequest
                .newBuilder().addAllDevicesIds(List.of(deviceIds))).build();
        DevicePluginGrpc.DevicePluginBlockingStub stub = DevicePluginGrpc.newBlockingStub(channels.get(connection));
        return () -> stub.allocate(request);
    }

    /**
     * One blocking Allocate of one container asking for {@code deviceId}, sent as exactly {@code bytes} bytes (the
     * valid request padded with an unknown field, which protobuf parsers skip), on connection {@code connection};
     * the call returns the gRPC status code's name ({@code OK}, {@code RESOURCE_EXHAUSTED}, ...).
     */
    public Callable<String> allocateOfSize(int connection, String deviceId, int bytes) {
        byte[] request = RawCalls.allocateOfSize(deviceId, bytes);
        ManagedChannel channel = channels.get(connection);
        return () -> RawCalls.code(() -> RawCalls.allocate(channel, request));
    }

    /** One blocking GetDevicePluginOptions (the no-op RPC, a baseline) on connection {@code connection}. */
    public Runnable optionsCall(int connection) {
        DevicePluginGrpc.DevicePluginBlockingStub stub = DevicePluginGrpc.newBlockingStub(channels.get(connection));
        return () -> stub.getDevicePluginOptions(Empty.getDefaultInstance());
    }

    /** Opens a new ListAndWatch stream on {@code connection} and returns the device count of its first list. */
    public int firstListSize(int connection) {
        // The stream is cancelled after its first message: left open, each call would hold one of the resource's
        // few ListAndWatch streams (CallLimits.streamsPerResource) until the channel closes.
        try (io.grpc.Context.CancellableContext stream = io.grpc.Context.current().withCancellation()) {
            return stream.call(() -> DevicePluginGrpc.newBlockingStub(channels.get(connection))
                    .listAndWatch(Empty.getDefaultInstance()).next().getDevicesCount());
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        channels.forEach(ManagedChannel::shutdownNow);
        transport.close();
    }
}
