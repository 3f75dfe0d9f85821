// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import io.rdmanode.discovery.BackendStatus;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.discovery.internal.TopologySource;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import java.util.List;
import java.util.Set;

/**
 * The verbs backend: the RDMA devices are those libibverbs can see (what a workload could open), described
 * with the sysfs backend's facts, which also supply PCI, SR-IOV and netdev facts that verbs does not have.
 * Without libibverbs, or when it finds no device, the snapshot says the backend is unavailable and why;
 * the agent keeps running. Deeper verbs queries (ibv_query_device/port/gid) are not bound yet.
 */
public final class VerbsTopologySource implements TopologySource {

    private final SysfsTopologySource sysfs;
    private Verbs verbs;
    private String loadFailure;

    public VerbsTopologySource(SysfsTopologySource sysfs) {
        this.sysfs = sysfs;
    }

    @Override
    public String name() {
        return "verbs";
    }

    @Override
    public HostSnapshot scan() {
        return filter(sysfs.scan());
    }

    @Override
    public HostSnapshot update(ScanHints hints) {
        return filter(sysfs.update(hints));
    }

    private HostSnapshot filter(HostSnapshot s) {
        BackendStatus status;
        List<RdmaDevice> devices;
        try {
            Set<String> names = Set.copyOf(verbs().deviceNames());
            devices = s.devices().stream().filter(d -> names.contains(d.name())).toList();
            status = names.isEmpty() ? BackendStatus.unavailable(name(), "libibverbs found no RDMA device (is ib_uverbs loaded? is /sys/class/infiniband_verbs populated?)")
                    : BackendStatus.available(name());
        } catch (VerbsException e) {
            devices = List.of();
            status = BackendStatus.unavailable(name(), e.getMessage());
        }
        return new HostSnapshot(s.revision(), s.takenAt(), status, devices, s.pciFunctions(), s.netDevices(),
                s.rdmaCm(), s.netnsMode(), s.problems());
    }

    private Verbs verbs() {
        if (verbs == null) {
            if (loadFailure != null) {
                throw new VerbsException(loadFailure);
            }
            try {
                verbs = Verbs.load();
            } catch (VerbsException e) {
                loadFailure = e.getMessage();
                throw e;
            }
        }
        return verbs;
    }
}
