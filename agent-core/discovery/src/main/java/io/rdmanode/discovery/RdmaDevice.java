// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * One RDMA device ({@code /sys/class/infiniband/<name>}, {@code sysfs-class-infiniband}).
 *
 * @param nodeGuid      {@code xxxx:xxxx:xxxx:xxxx}; empty when the file is missing
 * @param fwVersion     empty when missing or blank (Soft-RoCE prints an empty line)
 * @param driver        kernel driver of the PCI function ({@code mlx5_core}), or of the device for soft
 *                      devices ({@code rdma_rxe} is not visible in sysfs, so empty there)
 * @param pciFunction   the PCI function behind the device; empty for virtual devices (rxe, siw)
 * @param parentNetdev  soft devices' {@code parent} attribute (the netdev rxe runs on)
 * @param uverbs        {@code /dev/infiniband/uverbsN}, present or absent with the reason
 * @param hwCounterFiles device-level {@code hw_counters/*} files
 * @since 1.0
 */
public record RdmaDevice(String name, NodeType nodeType, Optional<String> nodeGuid, Optional<String> fwVersion,
                         Optional<String> driver, Optional<PciAddress> pciFunction, Optional<String> parentNetdev,
                         List<RdmaPort> ports, CharDevice uverbs, List<Path> hwCounterFiles) {

    public RdmaDevice {
        ports = List.copyOf(ports);
        hwCounterFiles = List.copyOf(hwCounterFiles);
    }

    /** {@code node_type}: "1: CA". */
    public enum NodeType {
        UNKNOWN, CA, SWITCH, ROUTER, RNIC, USNIC, USNIC_UDP, UNSPECIFIED;

        public static NodeType ofCode(int code) {
            return code >= 1 && code <= 7 ? values()[code] : UNKNOWN;
        }
    }

    public Optional<RdmaPort> port(int number) {
        return ports.stream().filter(p -> p.number() == number).findFirst();
    }
}
