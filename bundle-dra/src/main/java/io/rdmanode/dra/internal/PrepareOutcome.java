// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import java.util.List;
import java.util.Optional;

/**
 * What Prepare answers for one claim: its devices, or an error (kubelet then ignores the devices) and why, for the
 * refusal counter.
 */
record PrepareOutcome(List<PreparedDevice> devices, Optional<String> error, Optional<RefusalReason> reason) {

    PrepareOutcome {
        devices = List.copyOf(devices);
    }

    static PrepareOutcome prepared(List<PreparedDevice> devices) {
        return new PrepareOutcome(devices, Optional.empty(), Optional.empty());
    }

    static PrepareOutcome failed(RefusalReason reason, String error) {
        return new PrepareOutcome(List.of(), Optional.of(error), Optional.of(reason));
    }
}
