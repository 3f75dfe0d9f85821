// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.grpc.BindableService;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.Semaphore;
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
 * Bounded like the device-plugin sockets: at most {@link #MAX_CALLS} calls run at once (a further one is refused
 * at once with RESOURCE_EXHAUSTED, and kubelet retries), and a call its client gave up on (kubelet's 45 s
 * deadline, a cancelled call) prepares no further claim: each Prepare reads its claims from the API server, and
 * an abandoned one went on for as long as the API server took, holding a thread, for an answer nobody read.
 */
final class DraPluginService extends DRAPluginGrpc.DRAPluginImplBase {

    static final String V1BETA1_SERVICE = "k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin";
    /** Calls served at once: kubelet prepares a pod's claims in one call and pods one after the other. */
    static final int MAX_CALLS = 8;

    private final Semaphore slots = new Semaphore(MAX_CALLS);

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
        if (!slots.tryAcquire()) {
            refuseBusy(answer);
            return;
        }
        try {
            long start = System.nanoTime();
            NodePrepareResourcesResponse.Builder out = NodePrepareResourcesResponse.newBuilder();
            for (Claim c : request.getClaimsList()) {
                if (abandoned(answer)) {
                    return;
                }
                PrepareOutcome outcome = claims.prepare(ref(c));
                stats.countPrepared(outcome);
                NodePrepareResourceResponse.Builder one = NodePrepareResourceResponse.newBuilder();
                outcome.error().ifPresentOrElse(one::setError, () -> outcome.devices().forEach(d -> one.addDevices(
                        Device.newBuilder().addAllRequestNames(d.requests()).setPoolName(d.pool())
                                .setDeviceName(d.device()).addAllCdiDeviceIds(d.cdiIds()))));
                out.putClaims(c.getUid(), one.build());
            }
            if (abandoned(answer)) {
                return;
            }
            answer.onNext(out.build());
            answer.onCompleted();
            stats.observePrepare(System.nanoTime() - start);
        } finally {
            slots.release();
        }
    }

    @Override
    public void nodeUnprepareResources(NodeUnprepareResourcesRequest request,
                                       StreamObserver<NodeUnprepareResourcesResponse> answer) {
        if (!slots.tryAcquire()) {
            refuseBusy(answer);
            return;
        }
        try {
            NodeUnprepareResourcesResponse.Builder out = NodeUnprepareResourcesResponse.newBuilder();
            for (Claim c : request.getClaimsList()) {
                NodeUnprepareResourceResponse.Builder one = NodeUnprepareResourceResponse.newBuilder();
                claims.unprepare(ref(c)).ifPresentOrElse(e -> {
                    one.setError(e);
                    stats.unprepareErrors.increment();
                }, stats.claimsUnprepared::increment);
                out.putClaims(c.getUid(), one.build());
            }
            if (abandoned(answer)) {
                return;
            }
            answer.onNext(out.build());
            answer.onCompleted();
        } finally {
            slots.release();
        }
    }

    private void refuseBusy(StreamObserver<?> answer) {
        stats.callsRefusedBusy.increment();
        answer.onError(Status.RESOURCE_EXHAUSTED.withDescription(MAX_CALLS + " DRA calls are being served already;"
                + " retry").asRuntimeException());
    }

    /** True (and counted) when the client gave up on the call: its answer would go nowhere. */
    private boolean abandoned(StreamObserver<?> answer) {
        boolean cancelled = Context.current().isCancelled()
                || answer instanceof io.grpc.stub.ServerCallStreamObserver<?> call && call.isCancelled();
        if (cancelled) {
            stats.callsAbandoned.increment();
        }
        return cancelled;
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
