// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import io.rdmanode.discovery.NetDevice;
import java.util.Objects;
import java.util.Optional;

/**
 * A netdev of a candidate, with how it belongs to it. {@code ifNames} selectors match any of a candidate's
 * netdevs.
 *
 * @param linkType  from discovery's netdev; empty when the netdev is not in the agent's namespace
 * @param operState {@code up}, {@code down}, ... as the kernel prints it; empty when not visible
 * @since 1.0
 */
public record NetdevRef(String name, Role role, Optional<NetDevice.LinkType> linkType, Optional<String> operState) {

    /** How the netdev belongs to the candidate. */
    public enum Role {
        /** Under the candidate's PCI function ({@code net/}). */
        FUNCTION,
        /** Bound to one of the RDMA device's ports (RoCE: GID 0's netdev; may be a bond master). */
        PORT,
        /** A member of the bond an RDMA bond device runs on. */
        BOND_MEMBER,
        /** The netdev a soft RDMA device (rxe, siw) runs on. */
        PARENT
    }

    public NetdevRef {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(linkType, "linkType");
        Objects.requireNonNull(operState, "operState");
    }
}
