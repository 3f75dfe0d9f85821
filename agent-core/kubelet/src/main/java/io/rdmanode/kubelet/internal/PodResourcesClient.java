// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.rdmanode.kubelet.HeldDevice;
import io.rdmanode.kubelet.internal.podresources.ContainerDevices;
import io.rdmanode.kubelet.internal.podresources.ContainerResources;
import io.rdmanode.kubelet.internal.podresources.ListPodResourcesRequest;
import io.rdmanode.kubelet.internal.podresources.ListPodResourcesResponse;
import io.rdmanode.kubelet.internal.podresources.PodResources;
import io.rdmanode.kubelet.internal.podresources.PodResourcesListerGrpc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Calls kubelet's {@code v1.PodResourcesLister/List} on its Unix socket: one kept channel, a deadline covering
 * (re)connection and answer, and a bounded answer size. Concurrent calls share the channel.
 */
final class PodResourcesClient {

    private final UdsTransport transport;
    private ManagedChannel channel;          // guarded by this
    private Path channelSocket;              // guarded by this

    PodResourcesClient(UdsTransport transport) {
        this.transport = transport;
    }

    /** Why the API could not answer; the message is "pod-resources socket PATH: why". */
    static final class UnreachableException extends Exception {
        private static final long serialVersionUID = 1L;

        UnreachableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    List<HeldDevice> list(PodResourcesSettings settings) throws UnreachableException {
        Path socket = settings.socket();
        if (!Files.exists(socket)) {
            throw new UnreachableException("pod-resources socket " + socket + ": absent", null);
        }
        Deadline deadline = Deadline.after(settings.timeoutMillis(), TimeUnit.MILLISECONDS);
        try {
            return holdings(call(channel(socket, false), deadline, settings));
        } catch (StatusRuntimeException first) {
            if (first.getStatus().getCode() != Status.Code.UNAVAILABLE) {
                throw unreachable(socket, first, settings);
            }
        }
        // The kept channel lost kubelet (restarted, or back after a stop) and fails fast while it reconnects:
        // one fresh dial within the same deadline tells a kubelet that is back from one that is not.
        try {
            return holdings(call(channel(socket, true), deadline, settings));
        } catch (StatusRuntimeException e) {
            throw unreachable(socket, e, settings);
        }
    }

    private static ListPodResourcesResponse call(ManagedChannel channel, Deadline deadline,
                                                 PodResourcesSettings settings) {
        return PodResourcesListerGrpc.newBlockingStub(channel).withDeadline(deadline)
                .withMaxInboundMessageSize(settings.maxInboundBytes())
                .list(ListPodResourcesRequest.getDefaultInstance());
    }

    private static UnreachableException unreachable(Path socket, StatusRuntimeException e,
                                                    PodResourcesSettings settings) {
        return new UnreachableException("pod-resources socket " + socket + ": " + describe(e.getStatus(),
                settings.timeoutMillis()), e);
    }

    /**
     * The channel to {@code socket}, kept between calls (a dial and HTTP/2 handshake per call cost more than the
     * call on a loaded node: 1,024 held VFs took a median 50 ms with a dial per call, 11 ms on a kept channel,
     * KubeletPodDevicesTest at load average 10-13 on 2 cores), or a new one when {@code fresh}.
     */
    private synchronized ManagedChannel channel(Path socket, boolean fresh) {
        if (fresh || channel == null || !socket.equals(channelSocket)) {
            if (channel != null) {
                channel.shutdownNow();
            }
            channel = transport.dial(socket);
            channelSocket = socket;
        }
        return channel;
    }

    synchronized void close() {
        if (channel != null) {
            channel.shutdownNow();
            channel = null;
        }
    }

    private static String describe(Status status, long timeoutMillis) {
        if (status.getCode() == Status.Code.DEADLINE_EXCEEDED) {
            return "no answer within " + timeoutMillis + " ms";
        }
        StringBuilder out = new StringBuilder(status.getCode().name());
        if (status.getDescription() != null) {
            out.append(' ').append(status.getDescription());
        }
        if (status.getCause() != null && status.getCause().getMessage() != null) {
            out.append(": ").append(status.getCause().getMessage());     // e.g. "connect(..) failed: Connection refused"
        }
        return out.toString();
    }

    static List<HeldDevice> holdings(ListPodResourcesResponse response) {
        List<HeldDevice> out = new ArrayList<>();
        for (PodResources pod : response.getPodResourcesList()) {
            for (ContainerResources container : pod.getContainersList()) {
                for (ContainerDevices devices : container.getDevicesList()) {
                    for (String id : devices.getDeviceIdsList()) {
                        out.add(new HeldDevice(pod.getNamespace(), pod.getName(), "", container.getName(),
                                devices.getResourceName(), id));
                    }
                }
            }
        }
        return out;
    }
}
