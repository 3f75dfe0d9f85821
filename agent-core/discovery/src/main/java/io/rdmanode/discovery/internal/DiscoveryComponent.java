// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.RdmaCounters;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.internal.events.DiscoveryEngine;
import io.rdmanode.discovery.internal.events.PortStateWatch;
import io.rdmanode.discovery.internal.netlink.KernelEvents;
import io.rdmanode.discovery.internal.netlink.RdmaNetnsModeReader;
import io.rdmanode.discovery.internal.sysfs.InfinibandClassReader;
import io.rdmanode.discovery.internal.sysfs.InfinibandCounters;
import io.rdmanode.discovery.internal.sysfs.KernelView;
import io.rdmanode.discovery.internal.sysfs.SysfsRoot;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import io.rdmanode.discovery.internal.verbs.VerbsTopologySource;
import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import io.rdmanode.health.StatusSection;
import io.rdmanode.netlink.Listening;
import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.verbs.RdmaVerbs;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The discovery service: picks the backend from configuration, keeps the snapshot current from kernel events
 * (live host: uevent, rtnetlink and, with the verbs bundle, verbs async events) and a periodic rescan, and
 * reports itself in {@code /status}, {@code /readyz} and {@code /metrics}. Configuration is an {@link Identity}
 * (backend and roots: which tree is read) and tuning (rescan interval, debounce). {@link #modified} applies
 * both in place: tuning is handed to the engine, another identity gives the same engine another source, so the
 * service registration, its listeners and the revision sequence stay and consumers hear the new tree as a diff.
 */
@Component(service = {RdmaDiscovery.class, StatusSection.class, HealthCheck.class, DiscoveryFigures.class},
           immediate = true, configurationPid = DiscoveryComponent.PID,
           configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = DiscoveryComponent.Config.class)
public final class DiscoveryComponent implements RdmaDiscovery, StatusSection, HealthCheck, DiscoveryFigures {

    static final String PID = "io.rdmanode.discovery";
    private static final Logger LOG = LoggerFactory.getLogger(DiscoveryComponent.class);

    @ObjectClassDefinition(name = "RDMA discovery")
    public @interface Config {
        @AttributeDefinition(description = "Where the topology comes from",
                options = {@Option(label = "sysfs", value = "sysfs"), @Option(label = "verbs", value = "verbs")})
        String backend() default "sysfs";

        @AttributeDefinition(description = "sysfs mount point; an unpacked recording for the demo host")
        String sysfsRoot() default "/sys";

        @AttributeDefinition(description = "/dev mount point (character device nodes)")
        String devRoot() default "/dev";

        @AttributeDefinition(description = "Safety-net full rescan period, milliseconds (0 = off); applied live",
                min = "0")
        long rescanInterval() default 30000;

        @AttributeDefinition(description = "Quiet time collecting a burst of kernel or verbs events into one"
                + " incremental scan, milliseconds; applied live", min = "0", max = "1000")
        long eventDebounce() default DiscoveryEngine.DEFAULT_DEBOUNCE_MS;
    }

    /** Which tree is read: another source or another tree is another topology, read by another source. */
    record Identity(String backend, String sysfsRoot, String devRoot) {
        static Identity of(Config c) {
            return new Identity(c.backend(), c.sysfsRoot(), c.devRoot());
        }

        SysfsRoot root() {
            return SysfsRoot.of(sysfsRoot, devRoot);
        }

        /** Read from /proc now: a mount can come and go between two config edits. */
        KernelView view() {
            return KernelView.of(root());
        }

        boolean verbsBackend() {
            return "verbs".equals(backend);
        }
    }

    /** What tuning is: applied to the running engine. */
    record Tuning(long rescanInterval, long eventDebounce) {
        static Tuning of(Config c) {
            return new Tuning(c.rescanInterval(), c.eventDebounce());
        }
    }

    private final DiscoveryEngine engine;
    private final VerbsLink verbs;
    private final PortStateWatch portWatch;
    private volatile Identity identity;
    private volatile KernelView view;
    private volatile RdmaCounters counters;
    private volatile Listening events;
    private volatile String eventsState;

    @Activate
    public DiscoveryComponent(Config config) {
        DiscoveryConfigCheck.require(config);
        this.identity = Identity.of(config);
        this.view = identity.view();
        Tuning tuning = Tuning.of(config);
        this.counters = new InfinibandCounters(identity.root().sys());
        this.engine = new DiscoveryEngine(source(identity), tuning.rescanInterval());
        engine.retune(tuning.rescanInterval(), tuning.eventDebounce());
        this.verbs = new VerbsLink(engine, view.runningKernel(), identity.verbsBackend());
        listen(view);
        this.portWatch = new PortStateWatch(identity.root().classInfiniband(), engine::snapshot,
                () -> Set.copyOf(verbs.eventDevices()), engine::requestScan);
    }

    private TopologySource source(Identity id) {
        SysfsRoot root = id.root();
        Supplier<NetnsMode> netns = view.runningKernel() ? RdmaNetnsModeReader::read
                : () -> NetnsMode.unknown("sysfsRoot " + root.sys() + " is a recording: RDMA netlink would describe"
                        + " the running kernel, not it");
        SysfsTopologySource sysfs = new SysfsTopologySource(root, netns);
        return id.verbsBackend() ? new VerbsTopologySource(sysfs, this::boundVerbs) : sysfs;
    }

    /**
     * Kernel events whenever the tree is the running kernel's sysfs seen from this network namespace, wherever it
     * is mounted; a recording changes only when edited, then rescanned, and another namespace's sysfs would be
     * described by events this process does not hear.
     */
    private void listen(KernelView v) {
        if (!v.runningKernel()) {
            events = null;
            eventsState = "off (recorded host: edit the tree and rescan)";
            return;
        }
        if (!v.thisNetns()) {
            events = null;
            eventsState = "off (" + v.description() + ": periodic rescan only; run the agent in the host's network"
                    + " namespace, hostNetwork: true)";
            LOG.warn("kernel events off: {}; device changes wait for the periodic rescan", v.description());
            return;
        }
        try {
            events = KernelEvents.listen(engine::hint);
            eventsState = "uevent+rtnetlink (" + v.description() + ")";
        } catch (NetlinkException e) {
            events = null;
            eventsState = "unavailable (" + e.getMessage() + "): periodic rescan only";
            LOG.warn("kernel events unavailable, relying on the periodic rescan: {}", e.getMessage());
        }
    }

    /**
     * Tuning (rescan interval, event debounce) goes to the engine, which keeps its snapshot, revision, listeners
     * and event sources. Another identity (backend or root) is read by a new source inside the same engine: the
     * service registration stays, consumers (device-plugin servers with their sockets and kubelet registrations)
     * are not rebuilt, and they hear the other tree's devices as one diff. Nothing here asks SCR to restart.
     */
    @Modified
    void modified(Config config) {
        DiscoveryConfigCheck.require(config);
        Identity next = Identity.of(config);
        if (!next.equals(identity)) {
            LOG.info("discovery backend or roots changed ({} -> {}): reading the new tree", identity, next);
            KernelView nextView = next.view();
            boolean eventsBefore = view.eventsApply();
            identity = next;
            view = nextView;
            counters = new InfinibandCounters(next.root().sys());
            portWatch.retarget(next.root().classInfiniband());
            verbs.retarget(nextView.runningKernel(), next.verbsBackend());
            if (eventsBefore != nextView.eventsApply() || !nextView.eventsApply()) {
                closeEvents();
                listen(nextView);
            }
            engine.replaceSource(source(next));
        }
        Tuning tuning = Tuning.of(config);
        engine.retune(tuning.rescanInterval(), tuning.eventDebounce());
        LOG.info("discovery tuning applied rescanInterval={}ms eventDebounce={}ms", tuning.rescanInterval(),
                tuning.eventDebounce());
    }

    private void closeEvents() {
        Listening e = events;
        if (e != null) {
            e.close();
        }
        events = null;
    }

    @Deactivate
    void stop() {
        portWatch.close();
        verbs.close();
        closeEvents();
        engine.close();
    }

    /** The verbs bundle is optional; see {@link VerbsLink}. Dynamic and greedy: its coming and going changes no registration. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
               policyOption = ReferencePolicyOption.GREEDY)
    void bindVerbs(RdmaVerbs v) {
        verbs.bind(v);
    }

    void unbindVerbs(RdmaVerbs v) {
        verbs.unbind(v);
    }

    /** Null before the link exists (the engine's first scan runs in the constructor) and while none is bound. */
    private RdmaVerbs boundVerbs() {
        VerbsLink link = verbs;
        return link == null ? null : link.current();
    }

    /** Figures for /status and /metrics. */
    @Override
    public Figures figures() {
        HostSnapshot s = engine.snapshot();
        DiscoveryEngine.Counters c = engine.counters();
        return new Figures(s.revision(), s.devices().size(), s.problems().size(), c.fullScans(),
                c.incrementalScans(), c.failedScans(), c.kernelEvents(), verbs.eventsReceived());
    }

    @Override
    public HostSnapshot snapshot() {
        return engine.snapshot();
    }

    @Override
    public HostSnapshot rescan() {
        return engine.rescan();
    }

    @Override
    public Optional<RdmaDevice> readDevice(Path sys, String name) {
        // Character devices stay the host's: /dev is not namespaced, and a moved device keeps its uverbs node.
        return InfinibandClassReader.readIfPresent(new SysfsRoot(sys, Path.of("/dev")), name);
    }

    @Override
    public RdmaCounters counters() {
        return counters;
    }

    @Override
    public RdmaCounters counters(Path sys) {
        return new InfinibandCounters(sys);
    }

    @Override
    public void addListener(RdmaTopologyListener listener) {
        engine.addListener(listener);
    }

    @Override
    public void removeListener(RdmaTopologyListener listener) {
        engine.removeListener(listener);
    }

    @Override
    public String name() {
        return "discovery";
    }

    @Override
    public Object status() {
        Map<String, Object> status = StatusView.of(engine.snapshot(), eventsState);
        DiscoveryEngine.Counters counters = engine.counters();
        status.put("scans", Map.of("full", counters.fullScans(), "incremental", counters.incrementalScans(),
                "failed", counters.failedScans()));
        status.put("kernelEvents", counters.kernelEvents());
        status.put("portStateWatch", portWatch.status());
        status.put("verbsEvents", Map.of("received", verbs.eventsReceived(), "devices", verbs.eventDevices()));
        status.put("identity", Map.of("backend", identity.backend(), "sysfsRoot", identity.sysfsRoot(),
                "devRoot", identity.devRoot()));
        status.put("tuning", Map.of("rescanInterval", engine.rescanInterval(), "eventDebounce", engine.debounce()));
        return status;
    }

    @Override
    public Kind kind() {
        return Kind.READY;
    }

    @Override
    public HealthStatus check() {
        HostSnapshot s = engine.snapshot();
        if (!s.backend().available()) {
            return HealthStatus.failing(s.backend().backend() + " backend unavailable: "
                    + s.backend().unavailableReason().orElse(""));
        }
        return HealthStatus.ok(s.backend().backend() + ": " + s.devices().size() + " RDMA devices, revision "
                + s.revision() + ", " + s.problems().size() + " problems, events " + eventsState);
    }
}
