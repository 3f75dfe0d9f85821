// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import java.util.Map;
import java.util.Optional;

/** The PIDs the installed bundles declare, by PID. A snapshot: bundles come and go with hot swap. */
record ConfigSchema(Map<String, PidSchema> pids) {

    Optional<PidSchema> find(String pid) {
        return Optional.ofNullable(pids.get(pid));
    }
}
