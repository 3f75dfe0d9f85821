// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Reads a ResourceClaim's allocation from the API server: kubelet's Prepare names the claim only. Behind this
 * interface so that Prepare is tested without an API server, and the client can be swapped.
 */
interface ClaimReader {

    /**
     * @return empty when the API server has no such claim
     * @throws ClaimReadException when the API server cannot be asked (unreachable, forbidden, a bad answer)
     */
    Optional<AllocatedClaim> read(String namespace, String name) throws ClaimReadException;

    /**
     * The claim's uid, {@code status.allocation.devices.results} (none when it is not allocated) and the uids of the
     * pods in {@code status.reservedFor} (the CNI finds a pod's prepared VF by its uid).
     */
    record AllocatedClaim(String uid, List<Result> results, List<String> podUids) {
        public AllocatedClaim {
            Objects.requireNonNull(uid, "uid");
            results = List.copyOf(results);
            podUids = List.copyOf(podUids);
        }

        public AllocatedClaim(String uid, List<Result> results) {
            this(uid, results, List.of());
        }
    }

    /** One allocation result: pool and device names exactly as in the driver's ResourceSlice. */
    record Result(String request, String driver, String pool, String device) { }

    final class ClaimReadException extends Exception {
        private static final long serialVersionUID = 1L;

        public ClaimReadException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
