// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.util.Objects;

/**
 * One value of an RDMA device that changes while the device exists, read from sysfs when asked
 * ({@link RdmaCounters}), never kept in a snapshot: a counter or a port's link attribute
 * ({@code Documentation/ABI/stable/sysfs-class-infiniband}).
 *
 * @param device the RDMA device ({@code mlx5_0})
 * @param port   the port number; 0 for a device-wide {@link Kind#HW_COUNTER} ({@code <device>/hw_counters/})
 * @param kind   which file of the port (or device) holds it
 * @param name   the counter's file name for the three counter kinds; ignored for the link attributes
 * @since 1.3
 */
public record RdmaCounter(String device, int port, Kind kind, String name) {

    /** Where the value is and how it reads. */
    public enum Kind {
        /** {@code ports/N/counters/<name>}: an unsigned decimal (the PMA counters, data ones in 4-byte words). */
        COUNTER,
        /** {@code ports/N/counters_ext/<name>}: an unsigned decimal (mlx4/mlx5 InfiniBand extended counters). */
        COUNTER_EXT,
        /** {@code ports/N/hw_counters/<name>} or, port 0, {@code hw_counters/<name>}: an unsigned decimal. */
        HW_COUNTER,
        /** {@code ports/N/state}, {@code "4: ACTIVE"}: the code. */
        STATE,
        /** {@code ports/N/phys_state}, {@code "5: LinkUp"}: the code. */
        PHYS_STATE,
        /** {@code ports/N/rate}, {@code "100 Gb/sec (4X EDR)"}: Gb/s. */
        RATE
    }

    public RdmaCounter {
        Objects.requireNonNull(device, "device");
        Objects.requireNonNull(kind, "kind");
        name = name == null ? "" : name;
    }

    /** A port's link attribute: {@link Kind#STATE}, {@link Kind#PHYS_STATE} or {@link Kind#RATE}. */
    public static RdmaCounter link(String device, int port, Kind kind) {
        return new RdmaCounter(device, port, kind, "");
    }
}
