// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.util.Optional;

/**
 * Which backend produced a snapshot and whether it could do its job.
 *
 * @param backend     {@code sysfs} or {@code verbs}
 * @param unavailableReason e.g. "libibverbs.so.1 not found"; empty when available
 * @since 1.0
 */
public record BackendStatus(String backend, Optional<String> unavailableReason) {

    public static BackendStatus available(String backend) {
        return new BackendStatus(backend, Optional.empty());
    }

    public static BackendStatus unavailable(String backend, String reason) {
        return new BackendStatus(backend, Optional.of(reason));
    }

    public boolean available() {
        return unavailableReason.isEmpty();
    }
}
