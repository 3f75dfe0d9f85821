// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Claims as the API server would answer them, set by the test; {@link #failWith} makes it unreachable. */
final class FakeClaimReader implements ClaimReader {

    private final Map<String, AllocatedClaim> claims = new ConcurrentHashMap<>();
    private volatile String failure;
    volatile int reads;
    /** Reads of these claims ("namespace/name") wait until their latch opens: a hanging API server. */
    final Map<String, java.util.concurrent.CountDownLatch> hanging = new ConcurrentHashMap<>();

    void put(String namespace, String name, AllocatedClaim claim) {
        claims.put(namespace + "/" + name, claim);
    }

    void remove(String namespace, String name) {
        claims.remove(namespace + "/" + name);
    }

    void failWith(String message) {
        failure = message;
    }

    @Override
    public Optional<AllocatedClaim> read(String namespace, String name) throws ClaimReadException {
        reads++;
        java.util.concurrent.CountDownLatch hang = hanging.get(namespace + "/" + name);
        if (hang != null) {
            try {
                hang.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ClaimReadException("interrupted", e);
            }
        }
        if (failure != null) {
            throw new ClaimReadException(failure, null);
        }
        return Optional.ofNullable(claims.get(namespace + "/" + name));
    }
}
