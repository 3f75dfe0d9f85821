// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.NetnsMode;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.TopologyDiff;
import io.rdmanode.discovery.internal.events.DiscoveryEngine;
import io.rdmanode.discovery.internal.netlink.KernelEventListener;
import io.rdmanode.discovery.internal.netlink.RdmaNetnsModeReader;
import io.rdmanode.discovery.internal.sysfs.SysfsRoot;
import io.rdmanode.discovery.internal.sysfs.SysfsTopologySource;
import io.rdmanode.discovery.internal.verbs.VerbsTopologySource;
import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import io.rdmanode.health.StatusSection;
import io.rdmanode.netlink.NetlinkException;
import java.util.Map;
import java.util.function.Supplier;
import org.osgi.service.component.ComponentServiceObjects;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The discovery service: picks the backend from configuration, keeps the snapshot current from kernel events
 * (live host) and a periodic rescan, and reports itself in {@code /status} and {@code /readyz}. A backend
 * change (or a new root) deactivates and reactivates the component: consumers see a fresh service.
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

        @AttributeDefinition(description = "Safety-net full rescan period, milliseconds (0 = off)", min = "0")
        long rescanInterval() default 30000;
    }

    private final DiscoveryEngine engine;
    private final java.util.Map<ComponentServiceObjects<RdmaTopologyListener>, WhiteboardListener> whiteboardListeners =
            new java.util.concurrent.ConcurrentHashMap<>();
    private final KernelEventListener events;
    private final String eventsState;

    @Activate
    public DiscoveryComponent(Config config) {
        SysfsRoot root = SysfsRoot.of(config.sysfsRoot(), config.devRoot());
        Supplier<NetnsMode> netns = root.isLiveHost() ? RdmaNetnsModeReader::read
                : () -> NetnsMode.unknown("sysfsRoot " + root.sys() + " is a recording: RDMA netlink would describe"
                        + " the running kernel, not it");
        SysfsTopologySource sysfs = new SysfsTopologySource(root, netns);
        TopologySource source = "verbs".equals(config.backend()) ? new VerbsTopologySource(sysfs) : sysfs;
        this.engine = new DiscoveryEngine(source, config.rescanInterval());
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
    }

    @Deactivate
    void stop() {
        if (events != null) {
            events.close();
        }
        engine.close();
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

    /** A whiteboard listener, obtained on its first event and released when it goes. */
    private static final class WhiteboardListener implements RdmaTopologyListener {
        private final ComponentServiceObjects<RdmaTopologyListener> objects;
        private RdmaTopologyListener service;

        WhiteboardListener(ComponentServiceObjects<RdmaTopologyListener> objects) {
            this.objects = objects;
        }

        @Override
        public synchronized void topologyChanged(HostSnapshot snapshot, TopologyDiff diff) {
            if (service == null) {
                service = objects.getService();
            }
            if (service != null) {
                service.topologyChanged(snapshot, diff);
            }
        }

        synchronized void release() {
            if (service != null) {
                try {
                    objects.ungetService(service);
                } catch (IllegalStateException | IllegalArgumentException gone) {
                    // the listener's bundle is already stopping
                }
                service = null;
            }
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
