// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

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
 * Calls kubelet's {@code v1.PodResourcesLister/List} on its Unix socket: one channel per call (the call is rare:
 * at start and before a pool change), a deadline covering dial and answer, and a bounded answer size.
 */
final class PodResourcesClient {

    private final UdsTransport transport;

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
        ManagedChannel channel = transport.dial(socket);
        try {
            ListPodResourcesResponse response = PodResourcesListerGrpc.newBlockingStub(channel)
                    .withDeadlineAfter(settings.timeoutMillis(), TimeUnit.MILLISECONDS)
                    .withMaxInboundMessageSize(settings.maxInboundBytes())
                    .list(ListPodResourcesRequest.getDefaultInstance());
            return holdings(response);
        } catch (StatusRuntimeException e) {
            throw new UnreachableException("pod-resources socket " + socket + ": " + describe(e.getStatus(),
                    settings.timeoutMillis()), e);
        } finally {
            channel.shutdownNow();
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
