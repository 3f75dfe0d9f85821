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
 * @param netDevices    every netdev of the device, sorted: its ports' netdevs, its PCI function's netdevs, a soft
 *                      device's parent, and all members of any bond among them ({@code mlx5_bond_0}: {@code bond0}
 *                      and both PFs' netdevs); empty when the topology around the device was not assembled
 * @param parentPciFunction a soft device's (rxe, siw) parent netdev's PCI function, where vendor, driver and
 *                      NUMA node of the hardware it runs on come from ({@link HostSnapshot#pciFunctionOf})
 * @since 1.0 ({@code netDevices} and {@code parentPciFunction} since 1.1)
 */
public record RdmaDevice(String name, NodeType nodeType, Optional<String> nodeGuid, Optional<String> fwVersion,
                         Optional<String> driver, Optional<PciAddress> pciFunction, Optional<String> parentNetdev,
                         List<RdmaPort> ports, CharDevice uverbs, List<Path> hwCounterFiles,
                         List<String> netDevices, Optional<PciAddress> parentPciFunction) {

    public RdmaDevice {
        ports = List.copyOf(ports);
        hwCounterFiles = FileList.of(hwCounterFiles);
        netDevices = List.copyOf(netDevices);
    }

    /** The 1.0 constructor: no netdev list, no parent PCI function. */
    public RdmaDevice(String name, NodeType nodeType, Optional<String> nodeGuid, Optional<String> fwVersion,
                      Optional<String> driver, Optional<PciAddress> pciFunction, Optional<String> parentNetdev,
                      List<RdmaPort> ports, CharDevice uverbs, List<Path> hwCounterFiles) {
        this(name, nodeType, nodeGuid, fwVersion, driver, pciFunction, parentNetdev, ports, uverbs, hwCounterFiles,
                List.of(), Optional.empty());
    }

    /** A copy with the netdevs and parent PCI function found from the whole topology. @since 1.1 */
    public RdmaDevice withTopology(List<String> allNetDevices, Optional<PciAddress> parentFunction) {
        return new RdmaDevice(name, nodeType, nodeGuid, fwVersion, driver, pciFunction, parentNetdev, ports, uverbs,
                hwCounterFiles, allNetDevices, parentFunction);
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
