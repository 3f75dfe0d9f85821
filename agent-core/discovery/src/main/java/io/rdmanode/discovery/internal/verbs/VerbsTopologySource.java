// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import io.rdmanode.discovery.BackendStatus;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.Problem;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.discovery.internal.TopologySource;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import java.util.List;

/**
 * The verbs backend: the RDMA devices are those libibverbs can open (what a workload could use), described by
 * {@code ibv_query_device}, {@code ibv_query_port} and the GID queries, with the sysfs backend's facts for
 * what verbs does not have (PCI, SR-IOV, netdevs, char devices, counters; see {@link VerbsSysfsMerge}).
 * libibverbs is loaded when the source is built, i.e. on the component's activation; without it, or when it
 * finds no device, every snapshot says the backend is unavailable and why, and the agent keeps running.
 */
public final class VerbsTopologySource implements TopologySource {

    static final String NO_DEVICE = "libibverbs found no RDMA device (is ib_uverbs loaded? is"
            + " /sys/class/infiniband_verbs populated?)";

    private final SysfsTopologySource sysfs;
    private final Verbs verbs;
    private final String loadFailure;

    public VerbsTopologySource(SysfsTopologySource sysfs) {
        this(sysfs, Verbs.LIBRARY);
    }

    VerbsTopologySource(SysfsTopologySource sysfs, String library) {
        this.sysfs = sysfs;
        Verbs loaded = null;
        String failure = null;
        try {
            loaded = Verbs.load(library);
        } catch (VerbsException e) {
            failure = e.getMessage();
        }
        this.verbs = loaded;
        this.loadFailure = failure;
    }

    @Override
    public String name() {
        return "verbs";
    }

    @Override
    public HostSnapshot scan() {
        return merge(sysfs.scan());
    }

    /** Sysfs re-reads what the hints name; verbs re-queries every device (a few calls each). */
    @Override
    public HostSnapshot update(ScanHints hints) {
        return merge(sysfs.update(hints));
    }

    private HostSnapshot merge(HostSnapshot s) {
        if (verbs == null) {
            return with(s, BackendStatus.unavailable(name(), loadFailure), List.of(), s.problems());
        }
        Verbs.Listing listing;
        try {
            listing = verbs.devices();
        } catch (VerbsException e) {
            return with(s, BackendStatus.unavailable(name(), e.getMessage()), List.of(), s.problems());
        }
        VerbsSysfsMerge.Result merged = VerbsSysfsMerge.merge(listing, s);
        BackendStatus status;
        if (listing.devices().isEmpty() && listing.failures().isEmpty()) {
            status = BackendStatus.unavailable(name(), NO_DEVICE);
        } else if (listing.devices().isEmpty()) {
            status = BackendStatus.unavailable(name(), "libibverbs could open no RDMA device: "
                    + String.join("; ", listing.failures().values()));
        } else {
            status = BackendStatus.available(name());
        }
        return with(s, status, merged.devices(), merged.problems());
    }

    private static HostSnapshot with(HostSnapshot s, BackendStatus status, List<RdmaDevice> devices,
                                     List<Problem> problems) {
        return new HostSnapshot(s.revision(), s.takenAt(), status, devices, s.pciFunctions(), s.netDevices(),
                s.rdmaCm(), s.netnsMode(), problems);
    }
}
