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
        if (failure != null) {
            throw new ClaimReadException(failure, null);
        }
        return Optional.ofNullable(claims.get(namespace + "/" + name));
    }
}
