// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs;

import java.util.List;
import java.util.Map;

/**
 * The devices that could be queried, and for each one that could not, why.
 *
 * @param failures device name → "what failed, on what: why"
 * @since 1.0
 */
public record IbvDeviceListing(List<IbvDevice> devices, Map<String, String> failures) {

    public IbvDeviceListing {
        devices = List.copyOf(devices);
        failures = Map.copyOf(failures);
    }
}
