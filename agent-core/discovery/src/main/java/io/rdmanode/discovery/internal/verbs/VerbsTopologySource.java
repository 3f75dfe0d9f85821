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
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The verbs backend, called from one thread like every {@link TopologySource}: the RDMA devices are those
 * libibverbs can open (what a workload could use), described by {@code ibv_query_device},
 * {@code ibv_query_port} and the GID queries, with the sysfs backend's facts for what verbs does not have
 * (PCI, SR-IOV, netdevs, char devices, counters; see {@link VerbsSysfsMerge}). libibverbs is loaded when the
 * source is built, i.e. on the component's activation; without it, or when it finds no device, every snapshot
 * says the backend is unavailable and why, and the agent keeps running.
 */
public final class VerbsTopologySource implements TopologySource {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsTopologySource.class);

    static final String NO_DEVICE = "libibverbs found no RDMA device (is ib_uverbs loaded? is"
            + " /sys/class/infiniband_verbs populated?)";

    private final SysfsTopologySource sysfs;
    private final Verbs verbs;
    private final String loadFailure;
    private HostSnapshot lastSysfs;
    private Map<String, VerbsDevice> known = Map.of();
    private Optional<String> reported;                  // null until the first snapshot

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
        return logged(merge(sysfs.scan(), name -> Optional.empty()));
    }

    /**
     * Sysfs re-reads what the hints name (widened to the objects they touch). Verbs re-opens only the devices
     * hinted or whose sysfs description changed; the others keep the last answer, so an event about one VF on
     * a host with hundreds costs one {@code ibv_open_device}, not hundreds.
     */
    @Override
    public HostSnapshot update(ScanHints hints) {
        HostSnapshot before = lastSysfs;
        HostSnapshot s = sysfs.update(hints);
        if (hints.isFull() || before == null) {
            return logged(merge(s, name -> Optional.empty()));
        }
        Map<String, VerbsDevice> previous = known;
        return logged(merge(s, name -> hints.rdmaDevices().contains(name) || !s.device(name).equals(before.device(name))
                ? Optional.empty() : Optional.ofNullable(previous.get(name))));
    }

    /** Logs when the backend becomes available or unavailable, or the reason changes: not on every scan. */
    private HostSnapshot logged(HostSnapshot s) {
        Optional<String> reason = s.backend().unavailableReason();
        if (!reason.equals(reported)) {
            if (reason.isPresent()) {
                LOG.warn("verbs backend unavailable: {}", reason.get());
            } else {
                LOG.info("verbs backend available devices={}", s.devices().size());
            }
            reported = reason;
        }
        return s;
    }

    private HostSnapshot merge(HostSnapshot s, Function<String, Optional<VerbsDevice>> cached) {
        lastSysfs = s;
        known = Map.of();
        if (verbs == null) {
            return with(s, BackendStatus.unavailable(name(), loadFailure), List.of(), s.problems());
        }
        Verbs.Listing listing;
        try {
            listing = verbs.devices(cached);
        } catch (VerbsException e) {
            return with(s, BackendStatus.unavailable(name(), e.getMessage()), List.of(), s.problems());
        }
        known = listing.devices().stream().collect(Collectors.toMap(VerbsDevice::name, d -> d));
        VerbsSysfsMerge.Result merged = VerbsSysfsMerge.merge(listing, s);
        return with(s, status(listing), merged.devices(), merged.problems());
    }

    private BackendStatus status(Verbs.Listing listing) {
        if (!listing.devices().isEmpty()) {
            return BackendStatus.available(name());
        }
        return BackendStatus.unavailable(name(), listing.failures().isEmpty() ? NO_DEVICE
                : "libibverbs could open no RDMA device: " + String.join("; ", listing.failures().values()));
    }

    /** Device contexts opened so far (diagnostics: incremental updates should open only what changed). */
    long contextsOpened() {
        return verbs == null ? 0 : verbs.contextsOpened();
    }

    private static HostSnapshot with(HostSnapshot s, BackendStatus status, List<RdmaDevice> devices,
                                     List<Problem> problems) {
        return new HostSnapshot(s.revision(), s.takenAt(), status, devices, s.pciFunctions(), s.netDevices(),
                s.rdmaCm(), s.netnsMode(), problems);
    }
}
