// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import java.util.List;
import java.util.Optional;

/**
 * What libibverbs says about one device ({@code ibv_query_device}, {@code ibv_query_port},
 * {@code ibv_query_gid_table} or {@code ibv_query_gid}), as plain values: no jnr type leaves {@link Verbs}.
 * Codes are the verbs enums unchanged ({@code enum ibv_port_state}, {@code ibv_mtu}, {@code ibv_link_layer},
 * IBTA width and speed).
 *
 * @param nodeGuid     {@code xxxx:xxxx:xxxx:xxxx}, as sysfs prints it
 * @param fwVer        {@code ibv_device_attr.fw_ver}; rdma-core prints {@code 0.0.0} when the kernel has none
 * @param vendorId     IEEE OUI ({@code 0xffffff} for Soft-RoCE)
 */
record VerbsDevice(String name, String nodeGuid, String sysImageGuid, String fwVer, long vendorId,
                   long vendorPartId, long hwVer, int maxQp, List<Port> ports) {

    VerbsDevice {
        ports = List.copyOf(ports);
    }

    /**
     * One port, numbered from 1.
     *
     * @param gids populated entries only (empty ones are left out, as in the sysfs backend)
     */
    record Port(int number, int state, int physState, int linkLayer, int maxMtu, int activeMtu, int gidTblLen,
                int lid, int activeWidth, int activeSpeed, List<GidEntry> gids) {

        Port {
            gids = List.copyOf(gids);
        }
    }

    /**
     * One GID table entry.
     *
     * @param value     colon-separated 16 bytes as the kernel prints them ({@code fe80:0000:...})
     * @param type      {@code enum ibv_gid_type}; empty when only {@code ibv_query_gid} was available
     * @param ndevIfindex ifindex of the netdev a RoCE GID belongs to; 0 when none
     */
    record GidEntry(int index, String value, Optional<Integer> type, int ndevIfindex) { }
}
