// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.util.Optional;

/**
 * One populated entry of a port's GID table ({@code ports/N/gids/I}, {@code gid_attrs/types/I},
 * {@code gid_attrs/ndevs/I} in {@code sysfs-class-infiniband}); all-zero entries are left out.
 *
 * @param value  colon-separated 16-byte GID as the kernel prints it
 * @param netdev the netdev a RoCE GID belongs to; empty on InfiniBand
 * @since 1.0
 */
public record Gid(int index, String value, Type type, Optional<String> netdev) {

    /** The kernel prints "IB/RoCE v1" for both; the port's link layer decides which it is. */
    public enum Type { IB, ROCE_V1, ROCE_V2, UNKNOWN }
}
