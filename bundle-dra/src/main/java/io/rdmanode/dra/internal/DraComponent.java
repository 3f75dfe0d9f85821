// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.rdmanode.agent.Handover;
import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.discovery.RdmaTopologyListener;
import io.rdmanode.discovery.TopologyDiff;
import io.rdmanode.health.StatusSection;
import io.rdmanode.kubelet.UnixSocketServers;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The DRA driver (issue 24, first slice): registration with kubelet's plugin watcher, the DRA service, the
 * node's ResourceSlices and the prepared-claims checkpoint. Off unless {@code dra { enabled = true }}: with the
 * section absent the component does not activate, with {@code enabled = false} it activates and serves nothing
 * (its {@code /status} section says so). A configuration change restarts it (no modified method): sockets and
 * slices are served again, the checkpoint keeps the prepared claims.
 */
@Component(service = {StatusSection.class, DraFigures.class}, immediate = true, configurationPid = DraComponent.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = DraComponent.Settings.class)
public final class DraComponent implements StatusSection, DraFigures {

    static final String PID = "io.rdmanode.dra";
    private static final Logger LOG = LoggerFactory.getLogger(DraComponent.class);

    @ObjectClassDefinition(name = "RDMA DRA driver")
    public @interface Settings {
        @AttributeDefinition(description = "Serve the DRA driver; false keeps it off")
        boolean enabled() default false;

        @AttributeDefinition(description = "Driver name (a DNS subdomain): ResourceSlices' and claims' driver")
        String driverName() default DraSettings.DEFAULT_DRIVER;

        @AttributeDefinition(description = "This node's name (the DaemonSet passes NODE_NAME); required when enabled")
        String nodeName() default "";

        @AttributeDefinition(description = "The ResourceSlice pool of this node's devices when no pools are"
                + " configured; empty = the node name")
        String pool() default "";

        String pluginsDir() default "/var/lib/kubelet/plugins";

        String registryDir() default "/var/lib/kubelet/plugins_registry";

        @AttributeDefinition(description = "Where the per-claim CDI specs go (the runtime's CDI spec dir)")
        String cdiDir() default "/var/run/cdi";

        @AttributeDefinition(description = "Prepared-claims checkpoint directory")
        String stateDir() default "/var/lib/rdma-node-agent/dra";

        @AttributeDefinition(description = "The node's /dev as the container runtime sees it (CDI host paths)")
        String hostDevRoot() default "/dev";

        @AttributeDefinition(description = "sysfs as the agent reads it (PCIe roots of the devices)")
        String sysfsRoot() default "/sys";

        @AttributeDefinition(description = "kubeconfig file; empty = in-cluster ServiceAccount credentials")
        String kubeconfig() default "";

        @AttributeDefinition(min = "5", max = "3600", description = "Seconds between checks of the published slices")
        int resyncSeconds() default 60;

        @AttributeDefinition(description = "Sockets named per agent instance (<driver>-<tag>-reg.sock,"
                + " dra-<tag>.sock), so that a handover or a DaemonSet surge registers the successor beside its"
                + " predecessor (kubelet 1.33+ keeps both and uses the newest). false: the fixed names, for a kubelet"
                + " without that rolling-update support")
        boolean socketPerInstance() default true;

        // The pool's selectors, as the device-plugin pools write them (property "selectors.vendors", ...); none = every
        // PCI function with an RDMA device. Applied by the device-plugin layer.
        String[] selectors_vendors() default {};

        String[] selectors_devices() default {};

        String[] selectors_drivers() default {};

        String[] selectors_pciAddresses() default {};

        String[] selectors_ifNames() default {};

        String[] selectors_pfNames() default {};

        String[] selectors_rootDevices() default {};

        String[] selectors_linkTypes() default {};

        // pools = [ { name = ..., selectors { ... } }, ... ]: several pools, each publishing its own slices (a device
        // in the first pool whose selectors take it). The config bridge maps element i to properties pools.<i>.name,
        // pools.<i>.selectors.<kind>; these pools.N.* members only declare those keys (ConfigMapper.ELEMENT), the
        // component reads the indexed properties (DraPools).
        @AttributeDefinition(description = "A pool's ResourceSlice pool name (DNS subdomains separated by '/')")
        String pools_N_name() default "";

        String[] pools_N_selectors_vendors() default {};

        String[] pools_N_selectors_devices() default {};

        String[] pools_N_selectors_drivers() default {};

        String[] pools_N_selectors_pciAddresses() default {};

        String[] pools_N_selectors_ifNames() default {};

        String[] pools_N_selectors_pfNames() default {};

        String[] pools_N_selectors_rootDevices() default {};

        String[] pools_N_selectors_linkTypes() default {};
    }

    private final boolean enabled;
    private final DraStats stats = new DraStats();
    private final RdmaDiscovery discovery;
    private volatile DevicePluginLayer layer;
    /** The layer's holder of this driver's devices, made for {@link #heldIn}; null while there is no layer. */
    private DevicePluginLayer.OutsideHolder outside;
    private DevicePluginLayer heldIn;
    private KubernetesClient client;
    private SliceSync slices;
    private DeviceHealthService health;
    private RdmaTopologyListener listener;
    private DraSockets sockets;
    private RegistrationService registration;
    private ClaimPreparer preparer;
    private DraSettings settings;
    private PoolDevices poolDevices;
    private AutoCloseable onHandedOver;
    private AutoCloseable onSuccessorLost;
    private volatile boolean handedOver;

    /** Without {@code pools} entries (one pool). */
    public DraComponent(Settings config, UnixSocketServers servers, RdmaDiscovery discovery, Handover handover)
            throws IOException {
        this(config, Map.of(), servers, discovery, handover);
    }

    /** @param properties the configuration's properties: the {@code pools.<i>.*} entries are read from them */
    @Activate
    public DraComponent(Settings config, Map<String, Object> properties, @Reference UnixSocketServers servers,
                        @Reference RdmaDiscovery discovery,
                        @Reference(cardinality = ReferenceCardinality.OPTIONAL) Handover handover)
            throws IOException {
        this.enabled = config.enabled();
        this.discovery = discovery;
        if (!enabled) {
            LOG.info("DRA driver disabled (dra.enabled = false)");
            return;
        }
        DraConfigCheck.require(config, properties);
        Map<String, Object> all = DraConfigCheck.properties(config);
        properties.forEach((key, value) -> {
            if (key.startsWith("pools.")) {
                all.put(key, value);
            }
        });
        List<PoolDevices.Pool> pools = DraPools.of(all, config.nodeName());
        DraSettings fixed = new DraSettings(config.driverName(), Path.of(config.pluginsDir()),
                Path.of(config.registryDir()), Path.of(config.cdiDir()), Path.of(config.stateDir()),
                Path.of(config.hostDevRoot()));
        settings = config.socketPerInstance() ? fixed.withInstance(Long.toString(System.currentTimeMillis(), 36))
                : fixed;
        boolean started = false;
        try {
            Config api = config.kubeconfig().isBlank() ? Config.autoConfigure(null)
                    : Config.fromKubeconfig(new File(config.kubeconfig()));
            // One quick retry inside fabric8: the slice sync retries with its own backoff, and a claim read must
            // answer well within kubelet's 45 s Prepare deadline (fabric8's default ten retries took ~20 s).
            api.setRequestRetryBackoffLimit(1);
            // The JDK HTTP client named here, not found through ServiceLoader (which OSGi class loaders defeat).
            client = new KubernetesClientBuilder().withHttpClientFactory(new JdkHttpClientFactory()).withConfig(api)
                    .build();
            poolDevices = new PoolDevices(pools, () -> Optional.ofNullable(layer));
            PoolDevices placing = poolDevices;
            SliceDevices devices = new SliceDevices(new PcieRoots(Path.of(config.sysfsRoot())), poolDevices);
            slices = new SliceSync(new SlicePublisher(client, settings.driverName(), config.nodeName()),
                    () -> devices.byPool(discovery.snapshot()), Duration.ofSeconds(config.resyncSeconds()));
            health = new DeviceHealthService(host -> {
                Map<String, String> poolOf = new LinkedHashMap<>();
                placing.byPool(host).forEach((pool, inPool) -> inPool.keySet().forEach(d -> poolOf.put(d, pool)));
                return poolOf;
            }, discovery.snapshot());
            listener = (HostSnapshot s, TopologyDiff d) -> {
                slices.request();
                health.update(s);
            };
            discovery.addListener(listener);
            preparer = new ClaimPreparer(settings.driverName(), new Fabric8ClaimReader(client), discovery::snapshot,
                    poolDevices, new LayerOwners(), new ClaimCdiSpecs(settings.cdiDir(), settings.driverName(),
                    new DevicePaths(settings.hostDevRoot())), new PreparedClaims(settings.checkpoint()));
            registration = new RegistrationService(settings.driverName(), settings.draSocket(), slices::request);
            DraPluginService dra = new DraPluginService(preparer, stats);
            sockets = new DraSockets(servers, settings, List.of(dra, dra.v1beta1(), health), registration, 1000);
            if (handover != null) {
                onHandedOver = handover.onHandedOver(this::handedOver);
                onSuccessorLost = handover.onSuccessorLost(this::successorLost);
            }
            preparer.holdPrepared();
            LOG.info("DRA driver {} serving registration={} endpoint={} pools={} node={}", settings.driverName(),
                    settings.registrationSocket(), settings.draSocket(), poolDevices.names(), config.nodeName());
            started = true;
        } finally {
            if (!started) {
                stop();
            }
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void bindLayer(DevicePluginLayer l) {
        layer = l;
        if (preparer != null) {
            preparer.holdPrepared();                       // the pools stop offering the prepared devices at once
        }
        if (health != null) {
            health.update(discovery.snapshot());           // pools with selectors can be told now
        }
        if (slices != null) {
            slices.request();
        }
    }

    void unbindLayer(DevicePluginLayer l) {
        if (layer == l) {
            layer = null;
        }
        synchronized (this) {
            if (heldIn == l && outside != null) {
                outside.close();
                outside = null;
                heldIn = null;
            }
        }
    }

    /** The holder in the current layer, made when the layer changed (a new one holds nothing yet). */
    private synchronized Optional<DevicePluginLayer.OutsideHolder> outside() {
        DevicePluginLayer l = layer;
        if (l != heldIn) {
            if (outside != null) {
                outside.close();
            }
            outside = l == null ? null : l.outsideHolder("DRA driver " + settings.driverName());
            heldIn = l;
        }
        return Optional.ofNullable(outside);
    }

    /** The device-plugin pools as the other owner of the devices, through the layer while it is there. */
    private final class LayerOwners implements DeviceOwners {
        @Override
        public Map<String, String> hold(java.util.Collection<String> pciAddresses) {
            return outside().map(h -> h.hold(pciAddresses)).orElse(Map.of());
        }

        @Override
        public void release(java.util.Collection<String> pciAddresses) {
            outside().ifPresent(h -> h.release(pciAddresses));
        }
    }

    /**
     * The successor serves kubelet now, under sockets of its own: this instance withdraws its registration (kubelet
     * then uses the successor's) and stops publishing slices (the successor publishes the same pool). Calls in
     * flight finish; the checkpoint lock keeps the two instances' prepared claims consistent meanwhile.
     */
    private void handedOver() {
        if (handedOver) {
            return;
        }
        handedOver = true;
        if (settings.instance().isEmpty()) {
            LOG.info("handed over: the DRA sockets have fixed names (dra.socketPerInstance = false); they stay until"
                    + " this instance stops");
        } else if (sockets != null) {
            sockets.close();
            LOG.info("handed over: DRA registration {} withdrawn, kubelet uses the successor's", settings.registrationSocket());
        }
        if (slices != null) {
            slices.close();
        }
    }

    /**
     * An instance that began to take over from this one died before it was ready, its DRA sockets left registered
     * with kubelet: they go (kubelet deregisters it and uses this instance's again), and this instance publishes its
     * slices again over whatever the dead one published.
     */
    private void successorLost() {
        if (handedOver) {
            return;
        }
        if (sockets != null) {
            sockets.successorLost();
        }
        if (slices != null) {
            slices.request();
        }
    }

    @Deactivate
    void stop() {
        synchronized (this) {
            if (outside != null) {
                outside.close();
                outside = null;
            }
        }
        for (AutoCloseable action : java.util.Arrays.asList(onHandedOver, onSuccessorLost)) {
            if (action != null) {
                try {
                    action.close();
                } catch (Exception e) {
                    LOG.debug("withdrawing a handover action: {}", e.toString());
                }
            }
        }
        if (health != null) {
            health.close();
        }
        if (sockets != null) {
            sockets.close();
        }
        if (listener != null) {
            discovery.removeListener(listener);
        }
        if (slices != null) {
            slices.close();
        }
        if (client != null) {
            client.close();
        }
    }

    @Override
    public DraStats stats() {
        return stats;
    }

    @Override
    public int preparedClaims() {
        return preparer == null ? 0 : preparer.preparedClaims().size();
    }

    @Override
    public Map<String, Long> sliceGenerations() {
        Map<String, Long> out = new LinkedHashMap<>();
        if (slices != null) {
            Map<String, SliceSync.State> states = slices.states();
            for (String pool : poolDevices.names()) {              // a pool not published yet: 0
                SliceSync.State st = states.get(pool);
                out.put(pool, st == null ? 0L : st.published().map(SlicePublisher.Published::generation).orElse(0L));
            }
        }
        return out;
    }

    @Override
    public List<String> devicesOfPod(String podUid) {
        ClaimPreparer p = preparer;
        return p == null ? List.of() : p.devicesOfPod(podUid);
    }

    @Override
    public String name() {
        return "dra";
    }

    @Override
    public Object status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("enabled", enabled);
        if (!enabled || settings == null) {
            return m;
        }
        m.put("driver", settings.driverName());
        m.put("endpoint", settings.draSocket().toString());
        registration.lastStatus().ifPresentOrElse(s -> {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("registered", s.registered());
            r.put("error", s.error());
            r.put("at", s.at().toString());
            m.put("registration", r);
        }, () -> m.put("registration", "kubelet has not called yet"));
        Map<String, Object> sl = new LinkedHashMap<>();
        Map<String, Object> byPool = new LinkedHashMap<>();
        Map<String, SliceSync.State> states = slices.states();
        Map<String, List<String>> overlaps;
        try {
            overlaps = poolDevices.overlaps(discovery.snapshot());
        } catch (IllegalStateException e) {
            overlaps = Map.of();
        }
        for (String pool : poolDevices.names()) {
            Map<String, Object> one = new LinkedHashMap<>();
            SliceSync.State st = states.get(pool);
            if (st != null) {
                st.published().ifPresent(p -> {
                    one.put("generation", p.generation());
                    one.put("slices", p.slices());
                });
                st.error().ifPresent(e -> one.put("error", e));
            }
            if (overlaps.containsKey(pool)) {
                one.put("alsoSelectedByAnEarlierPool", overlaps.get(pool));
            }
            byPool.put(pool, one);
        }
        sl.put("pools", byPool);
        slices.error().ifPresent(e -> sl.put("error", e));
        m.put("resourceSlices", sl);
        m.put("preparedClaims", preparer.preparedClaims().stream().map(c -> c.namespace() + "/" + c.name()
                + " (" + c.uid() + "): " + c.devices().stream().map(PreparedDevice::device).toList()).toList());
        return m;
    }
}
