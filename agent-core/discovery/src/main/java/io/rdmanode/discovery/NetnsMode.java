// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.util.Optional;

/**
 * The RDMA subsystem's network-namespace mode (RDMA netlink {@code RDMA_NLDEV_CMD_SYS_GET},
 * attribute {@code RDMA_NLDEV_SYS_ATTR_NETNS_MODE}; {@code rdma system show}). In {@code SHARED} mode every
 * namespace sees every RDMA device; in {@code EXCLUSIVE} mode a device belongs to one namespace.
 *
 * @param reason why the mode is {@code UNKNOWN}; empty otherwise
 * @since 1.0
 */
public record NetnsMode(Mode mode, Optional<String> reason) {

    public enum Mode { SHARED, EXCLUSIVE, UNKNOWN }

    public static NetnsMode of(Mode mode) {
        return new NetnsMode(mode, Optional.empty());
    }

    public static NetnsMode unknown(String reason) {
        return new NetnsMode(Mode.UNKNOWN, Optional.of(reason));
    }
}
