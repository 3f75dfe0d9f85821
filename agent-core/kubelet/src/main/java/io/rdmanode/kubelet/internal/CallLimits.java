// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

/**
 * Bounds on what kubelet's clients (or anything else that reaches a plugin socket) may make the host hold: calls
 * at once, time per call and bytes per request (issue 21: two concurrent 4 MB Allocate requests used to take the
 * agent down). kubelet itself sends one call at a time per resource (its device manager admits pods one by one)
 * and never sets a deadline on Allocate, so the bounds sit far above what it does and the deadline is ours.
 *
 * @param callTimeout        milliseconds an Allocate, GetPreferredAllocation or PreStartContainer may run before
 *                           it is answered {@code DEADLINE_EXCEEDED} (its handler interrupted) and its slot freed
 * @param callsPerResource   unary calls one resource serves at once; past it {@code RESOURCE_EXHAUSTED} at once
 * @param callsTotal         unary calls all resources serve at once (the RPC threads are sized from it)
 * @param streamsPerResource ListAndWatch streams one resource keeps open (kubelet holds one; two across its
 *                           restart)
 * @param messageCeiling     bytes of a request the transport reads at most, whatever the pool's size: with
 *                           {@code callsTotal} it bounds the direct memory requests can take
 */
public record CallLimits(long callTimeout, int callsPerResource, int callsTotal, int streamsPerResource,
                         int messageCeiling) {

    /**
     * 16 calls of at most 1 MiB: 16 MiB of direct memory at worst, and a heap copy plus the parsed request
     * (~3x the bytes) for those within their pool's limit, which is 64 KiB for every pool short of thousands of
     * devices ({@link RequestSizeLimit}).
     */
    public static final CallLimits DEFAULTS = new CallLimits(10_000, 8, 16, 4, 1 << 20);

    public CallLimits {
        if (callTimeout <= 0 || callsPerResource < 1 || callsTotal < 1 || streamsPerResource < 1
                || messageCeiling < RequestSizeLimit.FLOOR) {
            throw new IllegalArgumentException("call limits out of range: " + this);
        }
    }

    /** RPC handler threads: every admitted unary call, plus room for streams opening and registration clients. */
    int rpcThreads() {
        return callsTotal + 4;
    }
}
