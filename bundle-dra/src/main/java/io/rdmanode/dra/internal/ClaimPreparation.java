// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import java.util.Optional;

/** What the DRA service does per claim; the gRPC layer only maps messages. Both calls are idempotent. */
interface ClaimPreparation {

    PrepareOutcome prepare(ClaimRef claim);

    /** @return an error text, empty on success (an unknown claim succeeds) */
    Optional<String> unprepare(ClaimRef claim);
}
