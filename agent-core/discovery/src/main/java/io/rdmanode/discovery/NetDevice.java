// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.util.Optional;

/**
 * A network interface in the agent's network namespace ({@code /sys/class/net/<name>}, {@code sysfs-class-net}).
 *
 * @param operState   {@code up}, {@code down}, {@code unknown}, … as the kernel prints it
 * @param linkType    from {@code type} (ARPHRD: 1 ether, 32 infiniband)
 * @param pciFunction the PCI function behind it; empty for virtual netdevs
 * @param rdmaDevice  the RDMA device on the same PCI function, or the soft RDMA device running on it
 * @since 1.0
 */
public record NetDevice(String name, int ifindex, Optional<String> mac, String operState, LinkType linkType,
                        Optional<PciAddress> pciFunction, Optional<String> rdmaDevice) {

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
