// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.util.List;
import java.util.Optional;

/**
 * A network interface in the agent's network namespace ({@code /sys/class/net/<name>}, {@code sysfs-class-net}).
 *
 * @param operState   {@code up}, {@code down}, {@code unknown}, … as the kernel prints it
 * @param linkType    from {@code type} (ARPHRD: 1 ether, 32 infiniband)
 * @param pciFunction the PCI function behind it; empty for virtual netdevs
 * @param rdmaDevice  the RDMA device on the same PCI function, the soft RDMA device running on it, or the
 *                    bonded RDMA device ({@code mlx5_bond_0}) of the bond it is a member of
 * @param bondMaster  the bond this netdev is enslaved to ({@code master} link to a netdev with {@code bonding/})
 * @param bondMembers a bond's members, sorted ({@code bonding/slaves}, else its {@code lower_*} links); empty
 *                    for any other netdev
 * @since 1.0 ({@code bondMaster} and {@code bondMembers} since 1.1)
 */
public record NetDevice(String name, int ifindex, Optional<String> mac, String operState, LinkType linkType,
                        Optional<PciAddress> pciFunction, Optional<String> rdmaDevice, Optional<String> bondMaster,
                        List<String> bondMembers) {

    public NetDevice {
        bondMembers = List.copyOf(bondMembers);
    }

    /** A netdev that is neither a bond nor a bond member (the 1.0 constructor). */
    public NetDevice(String name, int ifindex, Optional<String> mac, String operState, LinkType linkType,
                     Optional<PciAddress> pciFunction, Optional<String> rdmaDevice) {
        this(name, ifindex, mac, operState, linkType, pciFunction, rdmaDevice, Optional.empty(), List.of());
    }

    /** @since 1.1 */
    public boolean isBond() {
        return !bondMembers.isEmpty();
    }

    public enum LinkType {
        ETHER, INFINIBAND, LOOPBACK, OTHER;

        /** ARPHRD_* from {@code include/uapi/linux/if_arp.h}. */
        public static LinkType ofArphrd(int type) {
            return switch (type) {
                case 1 -> ETHER;
                case 32 -> INFINIBAND;
                case 772 -> LOOPBACK;
                default -> OTHER;
            };
        }
    }
}
