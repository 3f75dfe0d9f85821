// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import java.util.List;
import java.util.Optional;

/** What Prepare answers for one claim: its devices, or an error (kubelet then ignores the devices). */
record PrepareOutcome(List<PreparedDevice> devices, Optional<String> error) {

    PrepareOutcome {
        devices = List.copyOf(devices);
    }

    static PrepareOutcome prepared(List<PreparedDevice> devices) {
        return new PrepareOutcome(devices, Optional.empty());
    }

    static PrepareOutcome failed(String error) {
        return new PrepareOutcome(List.of(), Optional.of(error));
    }
}
