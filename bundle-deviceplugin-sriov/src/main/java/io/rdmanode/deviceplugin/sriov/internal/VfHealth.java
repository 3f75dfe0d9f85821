// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.discovery.NetDevice;
import io.rdmanode.discovery.PciFunction;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaPort;
import java.util.List;
import java.util.Optional;

/**
 * Why a pooled VF is unusable: its PF's link is down (every port of the PF's RDMA device not ACTIVE, or
 * without one its netdev not up), its own RDMA device is unusable (the layer's health: no port ACTIVE, uverbs
 * missing), or its RDMA device is gone from the host outside exclusive netns mode. A VF whose RDMA device sits in a pod's namespace
 * (exclusive mode) is healthy: it is in use, not broken.
 */
final class VfHealth {

    private VfHealth() {
    }

    static Optional<String> problem(SriovVf vf, Optional<VfRdma> onHost, Optional<VfRdma> known, boolean exclusive,
                                    HostIndex host) {
        Optional<String> pf = pfLinkDown(vf, host);
        if (pf.isPresent()) {
            return pf;
        }
        Optional<String> vfio = vf.candidate().deviceFiles().stream().filter(f -> f.kind().equals("vfio"))
                .flatMap(f -> f.absentReason().stream()).findFirst();
        if (vfio.isPresent()) {
            return vfio;
        }
        if (onHost.isEmpty() && known.isPresent() && !exclusive) {
            return Optional.of("RDMA device " + known.get().device() + " gone from the host");
        }
        if (onHost.isEmpty()) {
            return Optional.empty();
        }
        return vf.candidate().health().problem().map(p -> vf.rdmaDevices().get(0) + ": " + p);
    }

    private static Optional<String> pfLinkDown(SriovVf vf, HostIndex host) {
        Optional<PciFunction> pf = host.pciFunction(vf.pf());
        if (pf.isEmpty()) {
            return Optional.of("PF " + vf.pf() + " gone");
        }
        List<RdmaDevice> rdma = pf.get().rdmaDevices().stream().map(host::device).flatMap(Optional::stream).toList();
        if (!rdma.isEmpty()) {
            boolean up = rdma.stream().flatMap(d -> d.ports().stream())
                    .anyMatch(p -> p.state() == RdmaPort.PortState.ACTIVE);
            return up ? Optional.empty() : Optional.of("PF " + vf.pf() + " link down: " + rdma.get(0).name() + " "
                    + ports(rdma.get(0).ports()));
        }
        for (String name : pf.get().netDevices()) {
            Optional<NetDevice> n = host.netDevice(name);
            if (n.isPresent() && !n.get().operState().equals("up")) {
                return Optional.of("PF " + vf.pf() + " link down: " + name + " " + n.get().operState());
            }
        }
        return Optional.empty();
    }

    private static String ports(List<RdmaPort> ports) {
        return ports.stream().map(p -> "port " + p.number() + " " + p.state()).toList().toString();
    }
}
