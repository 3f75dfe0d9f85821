// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.testing;

import io.grpc.ManagedChannel;
import io.rdmanode.dra.internal.v1.Claim;
import io.rdmanode.dra.internal.v1.DRAPluginGrpc;
import io.rdmanode.dra.internal.v1.NodePrepareResourceResponse;
import io.rdmanode.dra.internal.v1.NodePrepareResourcesRequest;
import io.rdmanode.dra.internal.v1.NodeUnprepareResourcesRequest;
import io.rdmanode.kubelet.testing.UnixSockets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * kubelet's calls to a DRA driver's socket ({@code v1.DRAPlugin}), one claim per call, with kubelet's 45 s
 * deadline, for tests in other modules (the distribution's): no gRPC or protobuf type in the signatures, so the
 * bundle's generated messages stay internal. Registration is not done here: the caller dials the DRA socket it
 * found.
 */
public final class DraKubeletClient implements AutoCloseable {

    /** What Prepare answered for the claim: the CDI IDs of its devices, in order, or the claim's error. */
    public record Prepared(List<String> cdiIds, String error) { }

    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final UnixSockets.Client transport = new UnixSockets.Client(1, "dra-kubelet-client", executor);
    private final Path socket;

    private DraKubeletClient(Path socket) {
        this.socket = socket;
    }

    /** A client of the DRA service on {@code socket}; each call dials it anew, as kubelet may after a restart. */
    public static DraKubeletClient of(Path socket) {
        return new DraKubeletClient(socket);
    }

    /** NodePrepareResources for one claim; a failed RPC throws (gRPC's StatusRuntimeException). */
    public Prepared prepare(String namespace, String name, String uid) {
        ManagedChannel ch = transport.dial(socket);
        try {
            NodePrepareResourceResponse r = DRAPluginGrpc.newBlockingStub(ch).withDeadlineAfter(45, TimeUnit.SECONDS)
                    .nodePrepareResources(NodePrepareResourcesRequest.newBuilder()
                            .addClaims(claim(namespace, name, uid)).build())
                    .getClaimsOrThrow(uid);
            return new Prepared(r.getDevicesList().stream().flatMap(d -> d.getCdiDeviceIdsList().stream()).toList(),
                    r.getError());
        } finally {
            ch.shutdownNow();
        }
    }

    /** NodeUnprepareResources for one claim: the claim's error, empty when it was unprepared. */
    public String unprepare(String namespace, String name, String uid) {
        ManagedChannel ch = transport.dial(socket);
        try {
            return DRAPluginGrpc.newBlockingStub(ch).withDeadlineAfter(45, TimeUnit.SECONDS)
                    .nodeUnprepareResources(NodeUnprepareResourcesRequest.newBuilder()
                            .addClaims(claim(namespace, name, uid)).build())
                    .getClaimsOrThrow(uid).getError();
        } finally {
            ch.shutdownNow();
        }
    }

    private static Claim claim(String namespace, String name, String uid) {
        return Claim.newBuilder().setNamespace(namespace).setName(name).setUid(uid).build();
    }

    @Override
    public void close() {
        transport.close(2000);
        executor.shutdownNow();
    }
}
