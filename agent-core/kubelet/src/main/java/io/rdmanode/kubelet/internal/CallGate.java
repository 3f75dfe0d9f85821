// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.rdmanode.agent.LogText;
import io.rdmanode.agent.RefusalLog;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits the calls of one resource's server, over its {@link WireMessages} form. Once its request has arrived
 * (half-close), a unary call takes a slot of the resource ({@link CallLimits#callsPerResource}) and one of the
 * host ({@link CallLimits#callsTotal}); a ListAndWatch stream takes one of the resource's stream slots. With no
 * slot free the call is answered {@code RESOURCE_EXHAUSTED} at once, never queued. Slots are taken at the request,
 * not at the call's start: calls opened and never sent (a client that stalls) held them until the call timeout,
 * and 16 such calls refused every resource's kubelet calls for 10 s. A call whose request has not arrived, or a
 * unary call still running, after the call timeout is answered {@code DEADLINE_EXCEEDED}, its handler interrupted
 * and its slots given back. A request over the
 * resource's size limit is answered {@code RESOURCE_EXHAUSTED}, one that is not the method's protobuf message
 * {@code INVALID_ARGUMENT}. Each refusal is logged once per kind and interval ({@link RefusalLog}).
 */
final class CallGate implements ServerInterceptor {

    private static final Logger LOG = LoggerFactory.getLogger(CallGate.class);
    private static final RefusalLog REFUSALS = new RefusalLog(LOG, Duration.ofMinutes(1));

    private final String resource;
    private final CallLimits limits;
    private final Semaphore calls;
    private final Semaphore streams;
    private final Semaphore hostCalls;
    private final ScheduledExecutorService timer;
    private final ResourceStats stats;

    CallGate(String resource, HostBounds bounds, ResourceStats stats) {
        this.resource = resource;
        this.limits = bounds.limits();
        this.calls = new Semaphore(limits.callsPerResource());
        this.streams = new Semaphore(limits.streamsPerResource());
        this.hostCalls = bounds.hostCalls();
        this.timer = bounds.timer();
        this.stats = stats;
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
                                                                 ServerCallHandler<ReqT, RespT> next) {
        String method = call.getMethodDescriptor().getBareMethodName();
        boolean stream = call.getMethodDescriptor().getType() == MethodType.SERVER_STREAMING;
        GuardedCall<ReqT, RespT> guarded = new GuardedCall<>(call);
        ScheduledFuture<?> deadline;
        try {
            deadline = deadline(guarded, method);
        } catch (RejectedExecutionException e) {
            guarded.closeIfOpen(Status.UNAVAILABLE.withDescription("resource " + resource + " is stopping"),
                    new Metadata(), false);
            return new ServerCall.Listener<>() { };
        }
        ServerCall.Listener<ReqT> delegate;
        try {
            delegate = next.startCall(guarded, headers);
        } catch (RuntimeException e) {
            cancel(deadline);
            guarded.ended();
            throw e;
        }
        return new SimpleForwardingServerCallListener<>(delegate) {
            @Override
            public void onMessage(ReqT message) {
                if (guarded.closed()) {
                    return;
                }
                if (message instanceof WireMessages.Request r && r.oversize()) {
                    stats.refusedOversize.increment();
                    refuse(guarded, Status.RESOURCE_EXHAUSTED, "size-" + method, method + " request of "
                            + (r.size() < 0 ? "more than " + r.limit() : r.size()) + " bytes exceeds the limit of "
                            + r.limit() + " bytes for resource " + resource);
                    return;
                }
                try {
                    super.onMessage(message);       // parses: the wire bytes become the method's message here
                } catch (RuntimeException e) {
                    stats.refusedMalformed.increment();
                    refuse(guarded, Status.INVALID_ARGUMENT, "garbage-" + method, method + " request for resource "
                            + resource + " is not a valid protobuf message: " + describe(e));
                }
            }

            @Override
            public void onHalfClose() {
                if (guarded.closed()) {
                    return;
                }
                Runnable release = stream ? admitStream() : admitCall();
                if (release == null) {
                    stats.refusedBusy.increment();
                    refuse(guarded, Status.RESOURCE_EXHAUSTED, "calls-" + method, stream
                            ? "too many ListAndWatch streams open for resource " + resource + " (limit "
                              + limits.streamsPerResource() + ")"
                            : "too many calls in progress for resource " + resource + " (limit "
                              + limits.callsPerResource() + " per resource, " + limits.callsTotal() + " in all)");
                    return;
                }
                if (!guarded.admit(release)) {
                    release.run();                  // the deadline closed it meanwhile
                    return;
                }
                if (stream) {
                    cancel(deadline);               // a stream lives as long as kubelet holds it
                }
                guarded.running(true);
                try {
                    super.onHalfClose();            // unary handlers run here
                } finally {
                    guarded.running(false);
                }
            }

            @Override
            public void onCancel() {
                cancel(deadline);
                guarded.ended();
                super.onCancel();
            }

            @Override
            public void onComplete() {
                cancel(deadline);
                guarded.ended();
                super.onComplete();
            }
        };
    }

    /**
     * Answers DEADLINE_EXCEEDED and interrupts the handler if the call is still open after the call timeout: a
     * request that never arrived, or a unary handler still running. A stream's is cancelled once it is admitted.
     */
    private ScheduledFuture<?> deadline(GuardedCall<?, ?> guarded, String method) {
        long millis = limits.callTimeout();
        return timer.schedule(() -> {
            String what = guarded.admitted() ? " did not finish within " : ": the request did not arrive within ";
            if (guarded.closeIfOpen(Status.DEADLINE_EXCEEDED.withDescription(method + " for resource " + resource
                    + what + millis + " ms"), new Metadata(), true)) {
                stats.callsTimedOut.increment();
                REFUSALS.warn("deadline:" + resource, "{} timed out resource={} after {} ms", method, resource, millis);
            }
        }, millis, TimeUnit.MILLISECONDS);
    }

    private Runnable admitCall() {
        if (!calls.tryAcquire()) {
            return null;
        }
        if (!hostCalls.tryAcquire()) {
            calls.release();
            return null;
        }
        return () -> {
            hostCalls.release();
            calls.release();
        };
    }

    private Runnable admitStream() {
        return streams.tryAcquire() ? streams::release : null;
    }

    private <ReqT, RespT> void refuse(ServerCall<ReqT, RespT> call, Status status, String kind, String description) {
        REFUSALS.warn(kind + ":" + resource, "refused {}: {}", status.getCode(), description);
        if (call instanceof GuardedCall<ReqT, RespT> guarded) {
            guarded.closeIfOpen(status.withDescription(description), new Metadata(), false);
        } else {
            call.close(status.withDescription(description), new Metadata());
        }
    }

    private static String describe(RuntimeException e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return LogText.escape(root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage(), 200);
    }

    private static void cancel(ScheduledFuture<?> deadline) {
        if (deadline != null) {
            deadline.cancel(false);
        }
    }
}
