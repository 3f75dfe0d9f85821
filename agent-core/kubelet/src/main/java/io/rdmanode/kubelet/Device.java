// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet;

import java.util.List;
import java.util.Objects;

/**
 * One device ID advertised in {@code ListAndWatch} (kubelet {@code deviceplugin/v1beta1} {@code Device}).
 *
 * @param id        at most 63 characters, stable for the same hardware (kubelet checkpoints it)
 * @param healthy   sent as {@code Healthy} or {@code Unhealthy}
 * @param numaNodes NUMA nodes for the topology manager; empty means no topology is sent
 * @since 1.0
 */
public record Device(String id, boolean healthy, List<Long> numaNodes) {

    public static final int MAX_ID_LENGTH = 63;

    public Device {
        Objects.requireNonNull(id, "id");
        if (id.isEmpty() || id.length() > MAX_ID_LENGTH) {
            throw new IllegalArgumentException("device id '" + id + "' must have 1 to 63 characters");
        }
        numaNodes = List.copyOf(numaNodes);
    }
}
