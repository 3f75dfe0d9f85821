// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs;

import java.util.List;

/**
 * One port ({@code struct ibv_port_attr}). Codes are the verbs enums unchanged: {@code enum ibv_port_state},
 * {@code enum ibv_mtu}, {@code enum ibv_link_layer} (constants below), IBTA active width and speed.
 *
 * @param gids populated GID table entries only (all-zero entries are left out)
 * @since 1.0
 */
public record IbvPort(int number, int state, int physState, int linkLayer, int maxMtu, int activeMtu,
                      int gidTblLen, int lid, int activeWidth, int activeSpeed, List<IbvGid> gids) {

    /** {@code enum ibv_link_layer}. */
    public static final int LINK_LAYER_UNSPECIFIED = 0;
    public static final int LINK_LAYER_INFINIBAND = 1;
    public static final int LINK_LAYER_ETHERNET = 2;

    public IbvPort {
        gids = List.copyOf(gids);
    }
}
