// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink;

/**
 * RDMA_NLDEV_SYS_ATTR_NETNS_MODE: 0 exclusive (a device belongs to one namespace; needed to give one to a
 * pod), 1 shared (every namespace sees every device; the kernel default, {@code ib_core netns_mode=1}).
 */
public enum RdmaNetnsMode {
    EXCLUSIVE(0), SHARED(1);

    private final int wire;

    RdmaNetnsMode(int wire) {
        this.wire = wire;
    }

    /** The attribute's u8 value. */
    public int wire() {
        return wire;
    }

    public static RdmaNetnsMode ofWire(int v) {
        return v == 0 ? EXCLUSIVE : SHARED;
    }
}
