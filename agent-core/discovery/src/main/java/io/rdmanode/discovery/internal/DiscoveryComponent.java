// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.RdmaDevice;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.internal.events.DiscoveryEngine;
import io.rdmanode.discovery.internal.netlink.KernelEventListener;
import io.rdmanode.discovery.internal.netlink.RdmaNetnsModeReader;
import io.rdmanode.discovery.internal.sysfs.InfinibandClassReader;
import io.rdmanode.discovery.internal.sysfs.SysfsRoot;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import io.rdmanode.discovery.internal.verbs.VerbsTopologySource;
import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import io.rdmanode.health.StatusSection;
import io.rdmanode.netlink.NetlinkException;
import io.rdmanode.verbs.RdmaVerbs;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.osgi.service.component.ComponentConstants;
import org.osgi.service.component.ComponentContext;
import org.osgi.service.component.ComponentServiceObjects;
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
 * reports itself in {@code /status}, {@code /readyz} and {@code /metrics}. Tuning keys apply in place
 * ({@link #modified}); a backend change or a new root restarts the component: consumers see a fresh service.
 */
@Component(service = {RdmaDiscovery.class, StatusSection.class, HealthCheck.class}, immediate = true,
           configurationPid = DiscoveryComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = DiscoveryComponent.Config.class)
public final class DiscoveryComponent implements RdmaDiscovery, StatusSection, HealthCheck {

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

    /** What a running instance cannot change in place: another source or another tree is another topology. */
    private record Identity(String backend, String sysfsRoot, String devRoot) {
        static Identity of(Config c) {
            return new Identity(c.backend(), c.sysfsRoot(), c.devRoot());
        }
    }

    private final DiscoveryEngine engine;
    private final java.util.Map<ComponentServiceObjects<RdmaTopologyListener>, WhiteboardListener> whiteboardListeners =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final KernelEventListener events;
    private final String eventsState;
    private final Identity identity;
    private final ComponentContext context;
    private final VerbsLink verbs;
    private final DiscoveryMetrics metrics;

    @Activate
    public DiscoveryComponent(Config config, ComponentContext context) {
        DiscoveryConfigCheck.require(config);
        this.identity = Identity.of(config);
        this.context = context;
        SysfsRoot root = SysfsRoot.of(config.sysfsRoot(), config.devRoot());
        Supplier<NetnsMode> netns = root.isLiveHost() ? RdmaNetnsModeReader::read
                : () -> NetnsMode.unknown("sysfsRoot " + root.sys() + " is a recording: RDMA netlink would describe"
                        + " the running kernel, not it");
        SysfsTopologySource sysfs = new SysfsTopologySource(root, netns);
        boolean verbsBackend = "verbs".equals(config.backend());
        TopologySource source = verbsBackend ? new VerbsTopologySource(sysfs, this::boundVerbs) : sysfs;
        this.engine = new DiscoveryEngine(source, config.rescanInterval());
        engine.retune(config.rescanInterval(), config.eventDebounce());
        this.verbs = new VerbsLink(engine, root.isLiveHost(), verbsBackend);
        KernelEventListener listener = null;
        String state;
        if (root.isLiveHost()) {
            try {
                listener = new KernelEventListener(engine::hint);
                state = "uevent+rtnetlink";
            } catch (NetlinkException e) {
                state = "unavailable (" + e.getMessage() + "): periodic rescan only";
                LOG.warn("kernel events unavailable, relying on the periodic rescan: {}", e.getMessage());
            }
        } else {
            state = "off (recorded host: edit the tree and rescan)";
        }
        this.events = listener;
        this.eventsState = state;
        this.metrics = DiscoveryMetrics.register(context == null ? null : context.getBundleContext(), this::figures);
    }

    /**
     * Tuning keys (rescan interval, event debounce) apply in place: the engine keeps its snapshot, revision,
     * listeners and event sources, and the service registration stays, so consumers (device-plugin servers with
     * their sockets and kubelet registrations) are not rebuilt for a tuning edit. Another backend or root is
     * another topology: the component has SCR restart it, as a static change would. SCR holds this component's
     * lock while it calls here and disabling needs it, so the restart runs on its own short-lived thread.
     */
    @Modified
    void modified(Config config) {
        if (!Identity.of(config).equals(identity)) {
            LOG.info("discovery backend or roots changed ({} -> {}): restarting the component", identity,
                    Identity.of(config));
            String name = (String) context.getProperties().get(ComponentConstants.COMPONENT_NAME);
            Thread restart = new Thread(() -> {
                context.disableComponent(name);
                context.enableComponent(name);
            }, "rdma-agent-discovery-restart");
            restart.setDaemon(true);
            restart.start();
            return;
        }
        engine.retune(config.rescanInterval(), config.eventDebounce());
        LOG.info("discovery tuning applied rescanInterval={}ms eventDebounce={}ms", config.rescanInterval(),
                config.eventDebounce());
    }

    @Deactivate
    void stop() {
        metrics.close();
        verbs.close();
        if (events != null) {
            events.close();
        }
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
    DiscoveryMetrics.Figures figures() {
        HostSnapshot s = engine.snapshot();
        DiscoveryEngine.Counters c = engine.counters();
        return new DiscoveryMetrics.Figures(s.revision(), s.devices().size(), s.problems().size(), c.fullScans(),
                c.incrementalScans(), c.failedScans(), c.kernelEvents(), verbs.eventsReceived());
    }

    /**
     * Whiteboard listeners are bound as {@link ComponentServiceObjects} and fetched on first use, from the scan
     * thread: a listener component that also references {@link RdmaDiscovery} (the usual consumer) would
     * otherwise be activated from inside this component's activation, which SCR refuses as a circular
     * reference and the consumer never starts.
     */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
               service = RdmaTopologyListener.class)
    void bindListener(ComponentServiceObjects<RdmaTopologyListener> listener) {
        WhiteboardListener whiteboard = new WhiteboardListener(listener);
        whiteboardListeners.put(listener, whiteboard);
        engine.addListener(whiteboard);
    }

    void unbindListener(ComponentServiceObjects<RdmaTopologyListener> listener) {
        WhiteboardListener whiteboard = whiteboardListeners.remove(listener);
        if (whiteboard != null) {
            engine.removeListener(whiteboard);
            whiteboard.release();
        }
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
        status.put("verbsEvents", Map.of("received", verbs.eventsReceived(), "devices", verbs.eventDevices()));
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
