// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.util.List;

/**
 * What changed between two snapshots. A netdev moved into another network namespace disappears from this
 * namespace's view, so it is listed in {@link #netDevicesRemoved} (and in {@link #netDevicesAdded} when it
 * comes back); a netdev whose PCI function, RDMA device or ifindex changed is in {@link #netDevicesMoved}.
 *
 * @since 1.0
 */
public record TopologyDiff(long fromRevision, long toRevision, List<String> devicesAdded,
                           List<String> devicesRemoved, List<PortChange> portsChanged,
                           List<VfCountChange> vfCountsChanged, List<String> pciFunctionsAdded,
                           List<String> pciFunctionsRemoved, List<String> netDevicesAdded,
                           List<String> netDevicesRemoved, List<NetDeviceChange> netDevicesChanged,
                           List<NetDeviceChange> netDevicesMoved, List<String> otherChanges) {

    public TopologyDiff {
        devicesAdded = List.copyOf(devicesAdded);
        devicesRemoved = List.copyOf(devicesRemoved);
        portsChanged = List.copyOf(portsChanged);
        vfCountsChanged = List.copyOf(vfCountsChanged);
        pciFunctionsAdded = List.copyOf(pciFunctionsAdded);
        pciFunctionsRemoved = List.copyOf(pciFunctionsRemoved);
        netDevicesAdded = List.copyOf(netDevicesAdded);
        netDevicesRemoved = List.copyOf(netDevicesRemoved);
        netDevicesChanged = List.copyOf(netDevicesChanged);
        netDevicesMoved = List.copyOf(netDevicesMoved);
        otherChanges = List.copyOf(otherChanges);
    }

    /** A port's state, physical state or netdev changed. */
    public record PortChange(String device, int port, RdmaPort before, RdmaPort after) { }

    /** {@code sriov_numvfs} of a PF changed. */
    public record VfCountChange(PciAddress pf, int before, int after) { }

    /** Same name, different facts (operstate, MAC, PCI function, RDMA device, ifindex). */
    public record NetDeviceChange(String name, NetDevice before, NetDevice after) { }

    public boolean isEmpty() {
        return devicesAdded.isEmpty() && devicesRemoved.isEmpty() && portsChanged.isEmpty()
                && vfCountsChanged.isEmpty() && pciFunctionsAdded.isEmpty() && pciFunctionsRemoved.isEmpty()
                && netDevicesAdded.isEmpty() && netDevicesRemoved.isEmpty() && netDevicesChanged.isEmpty()
                && netDevicesMoved.isEmpty() && otherChanges.isEmpty();
    }
}
