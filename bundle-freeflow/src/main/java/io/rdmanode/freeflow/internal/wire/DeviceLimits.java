// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** What the router's virtual device advertises (QUERY_DEV and EXP_QUERY_DEV answers). */
public record DeviceLimits(String fwVer, long nodeGuid, long maxMrSize, int maxQp, int maxQpWr, int maxSge,
                           int maxCq, int maxCqe, int maxMr, int maxPd, int maxSrq) {
    /** The ConnectX-3 ids the genuine client's libmlx4 table matches (freeflow.md §1.1). */
    public static final int VENDOR_MELLANOX = 0x02c9;
    public static final int PART_CX3 = 4099;

    /**
     * The GUID as the verbs structs carry it: {@code __be64}, network byte order (ibv_devinfo prints
     * {@code be64toh(node_guid)}, which then matches the node_guid file of the client's sysfs view).
     */
    public long nodeGuidBigEndian() {
        return Long.reverseBytes(nodeGuid);
    }
}
