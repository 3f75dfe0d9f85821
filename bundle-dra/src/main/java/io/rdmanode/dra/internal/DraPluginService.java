// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.grpc.BindableService;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.StreamObserver;
import io.rdmanode.dra.internal.v1.Claim;
import io.rdmanode.dra.internal.v1.DRAPluginGrpc;
import io.rdmanode.dra.internal.v1.Device;
import io.rdmanode.dra.internal.v1.NodePrepareResourceResponse;
import io.rdmanode.dra.internal.v1.NodePrepareResourcesRequest;
import io.rdmanode.dra.internal.v1.NodePrepareResourcesResponse;
import io.rdmanode.dra.internal.v1.NodeUnprepareResourceResponse;
import io.rdmanode.dra.internal.v1.NodeUnprepareResourcesRequest;
import io.rdmanode.dra.internal.v1.NodeUnprepareResourcesResponse;

/**
 * kubelet's {@code DRAPlugin} service: maps the messages to {@link ClaimPreparation} claim by claim, so one bad
 * claim of a pod is a per-claim error and the others are still answered. All claims of a pod come in one call.
 */
final class DraPluginService extends DRAPluginGrpc.DRAPluginImplBase {

    static final String V1BETA1_SERVICE = "k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin";

    private final ClaimPreparation claims;
    private final DraStats stats;

    DraPluginService(ClaimPreparation claims) {
        this(claims, new DraStats());
    }

    DraPluginService(ClaimPreparation claims, DraStats stats) {
        this.claims = claims;
        this.stats = stats;
    }

    @Override
    public void nodePrepareResources(NodePrepareResourcesRequest request,
                                     StreamObserver<NodePrepareResourcesResponse> answer) {
        long start = System.nanoTime();
        NodePrepareResourcesResponse.Builder out = NodePrepareResourcesResponse.newBuilder();
        for (Claim c : request.getClaimsList()) {
            PrepareOutcome outcome = claims.prepare(ref(c));
            stats.countPrepared(outcome);
            NodePrepareResourceResponse.Builder one = NodePrepareResourceResponse.newBuilder();
            outcome.error().ifPresentOrElse(one::setError, () -> outcome.devices().forEach(d -> one.addDevices(
                    Device.newBuilder().addAllRequestNames(d.requests()).setPoolName(d.pool())
                            .setDeviceName(d.device()).addAllCdiDeviceIds(d.cdiIds()))));
            out.putClaims(c.getUid(), one.build());
        }
        answer.onNext(out.build());
        answer.onCompleted();
        stats.observePrepare(System.nanoTime() - start);
    }

    @Override
    public void nodeUnprepareResources(NodeUnprepareResourcesRequest request,
                                       StreamObserver<NodeUnprepareResourcesResponse> answer) {
        NodeUnprepareResourcesResponse.Builder out = NodeUnprepareResourcesResponse.newBuilder();
        for (Claim c : request.getClaimsList()) {
            NodeUnprepareResourceResponse.Builder one = NodeUnprepareResourceResponse.newBuilder();
            claims.unprepare(ref(c)).ifPresentOrElse(e -> {
                one.setError(e);
                stats.unprepareErrors.increment();
            }, stats.claimsUnprepared::increment);
            out.putClaims(c.getUid(), one.build());
        }
        answer.onNext(out.build());
        answer.onCompleted();
    }

    private static ClaimRef ref(Claim c) {
        return new ClaimRef(c.getNamespace(), c.getUid(), c.getName());
    }

    /**
     * The same handlers under the v1beta1 service name: its messages are v1's without {@code Device.share_id}
     * (field 5, never set here), so the bytes on the wire are the same.
     */
    BindableService v1beta1() {
        ServerServiceDefinition v1 = bindService();
        return () -> {
            ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(V1BETA1_SERVICE);
            for (ServerMethodDefinition<?, ?> m : v1.getMethods()) {
                add(b, m);
            }
            return b.build();
        };
    }

    private static <Q, A> void add(ServerServiceDefinition.Builder b, ServerMethodDefinition<Q, A> m) {
        MethodDescriptor<Q, A> renamed = m.getMethodDescriptor().toBuilder()
                .setFullMethodName(MethodDescriptor.generateFullMethodName(V1BETA1_SERVICE,
                        m.getMethodDescriptor().getBareMethodName()))
                .setSchemaDescriptor(null).build();
        b.addMethod(renamed, m.getServerCallHandler());
    }
}
