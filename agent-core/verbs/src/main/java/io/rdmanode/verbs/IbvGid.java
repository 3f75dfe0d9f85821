// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs;

import java.util.Optional;

/**
 * One GID table entry.
 *
 * @param value       colon-separated 16 bytes as the kernel prints them ({@code fe80:0000:...})
 * @param type        {@code enum ibv_gid_type} (constants below); empty when only {@code ibv_query_gid} was
 *                    available (rdma-core before v32)
 * @param ndevIfindex ifindex of the netdev a RoCE GID belongs to; 0 when none or unknown
 * @since 1.0
 */
public record IbvGid(int index, String value, Optional<Integer> type, int ndevIfindex) {

    /** {@code enum ibv_gid_type}. */
    public static final int TYPE_IB = 0;
    public static final int TYPE_ROCE_V1 = 1;
    public static final int TYPE_ROCE_V2 = 2;
}
