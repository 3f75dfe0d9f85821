// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

import io.rdmanode.discovery.BackendStatus;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.Problem;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.internal.ScanHints;
import io.rdmanode.discovery.internal.TopologySource;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import io.rdmanode.verbs.IbvDevice;
import io.rdmanode.verbs.IbvDeviceListing;
import io.rdmanode.verbs.RdmaVerbs;
import io.rdmanode.verbs.VerbsException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The verbs backend, called from one thread like every {@link TopologySource}: the RDMA devices are those
 * libibverbs can open (what a workload could use), described by {@code ibv_query_device},
 * {@code ibv_query_port} and the GID queries, with the sysfs backend's facts for what verbs does not have
 * (PCI, SR-IOV, netdevs, char devices, counters; see {@link VerbsSysfsMerge}). libibverbs comes from the verbs
 * bundle's {@link RdmaVerbs} service; without it, without the library, or when it finds no device, every
 * snapshot says the backend is unavailable and why, and the agent keeps running.
 */
public final class VerbsTopologySource implements TopologySource {

    private static final Logger LOG = LoggerFactory.getLogger(VerbsTopologySource.class);

    static final String NO_DEVICE = "libibverbs found no RDMA device (is ib_uverbs loaded? is"
            + " /sys/class/infiniband_verbs populated?)";

    static final String NO_VERBS_SERVICE = "no io.rdmanode.verbs.RdmaVerbs service (is the verbs bundle installed"
            + " and started?)";

    private final SysfsTopologySource sysfs;
    private final Supplier<RdmaVerbs> verbs;
    private HostSnapshot lastSysfs;
    private Map<String, IbvDevice> known = Map.of();
    private Optional<String> reported;                  // null until the first snapshot

    /**
     * @param verbs the verbs service as bound right now; null while there is none (the verbs bundle is
     *              optional for discovery: the sysfs backend needs nothing from it)
     */
    public VerbsTopologySource(SysfsTopologySource sysfs, Supplier<RdmaVerbs> verbs) {
        this.sysfs = sysfs;
        this.verbs = verbs;
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
        Map<String, IbvDevice> previous = known;
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

    private HostSnapshot merge(HostSnapshot s, Function<String, Optional<IbvDevice>> cached) {
        lastSysfs = s;
        known = Map.of();
        RdmaVerbs v = verbs.get();
        if (v == null || v.unavailableReason().isPresent()) {
            return with(s, BackendStatus.unavailable(name(), v == null ? NO_VERBS_SERVICE
                    : v.unavailableReason().get()), List.of(), s.problems());
        }
        IbvDeviceListing listing;
        try {
            listing = v.devices(cached);
        } catch (VerbsException e) {
            return with(s, BackendStatus.unavailable(name(), e.getMessage()), List.of(), s.problems());
        }
        known = listing.devices().stream().collect(Collectors.toMap(IbvDevice::name, d -> d));
        VerbsSysfsMerge.Result merged = VerbsSysfsMerge.merge(listing, s);
        return with(s, status(listing), merged.devices(), merged.problems());
    }

    private BackendStatus status(IbvDeviceListing listing) {
        if (!listing.devices().isEmpty()) {
            return BackendStatus.available(name());
        }
        return BackendStatus.unavailable(name(), listing.failures().isEmpty() ? NO_DEVICE
                : "libibverbs could open no RDMA device: " + String.join("; ", listing.failures().values()));
    }

    /** Device contexts opened so far (diagnostics: incremental updates should open only what changed). */
    long contextsOpened() {
        RdmaVerbs v = verbs.get();
        return v == null ? 0 : v.contextsOpened();
    }

    private static HostSnapshot with(HostSnapshot s, BackendStatus status, List<RdmaDevice> devices,
                                     List<Problem> problems) {
        return new HostSnapshot(s.revision(), s.takenAt(), status, devices, s.pciFunctions(), s.netDevices(),
                s.rdmaCm(), s.netnsMode(), problems);
    }
}
