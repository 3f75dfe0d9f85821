// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.internal;

import io.rdmanode.deviceplugin.CandidateDevice;
import io.rdmanode.deviceplugin.CdiSpec;
import io.rdmanode.deviceplugin.DeviceFile;
import io.rdmanode.deviceplugin.DevicePaths;
import io.rdmanode.deviceplugin.DevicePluginLayer;
import io.rdmanode.deviceplugin.Granularity;
import io.rdmanode.deviceplugin.LayerSettings;
import io.rdmanode.deviceplugin.ResourcePool;
import io.rdmanode.deviceplugin.ServedPool;
import io.rdmanode.deviceplugin.StatusRegistry;
import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.discovery.RdmaDiscovery;
import io.rdmanode.health.StatusSection;
import io.rdmanode.kubelet.DevicePluginHost;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import io.rdmanode.kubelet.PodDevices;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import java.time.Duration;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The layer as an OSGi service ({@code deviceplugin.common { hostDevRoot = ..., cdiSpecDirs = [...] }}). Immediate, so
 * the allocation ledger is read and the CDI spec directories are looked at before a pool serves (specs found there
 * stay until their pools start, or go when no pool claims them and nothing of them is held: {@link CdiSpecs}). A
 * change of the settings replaces the service, which restarts the pools that use it (their device paths change).
 */
@Component(service = {DevicePluginLayer.class, StatusSection.class, HeldFigures.class}, immediate = true,
        configurationPid = DevicePluginLayer.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = LayerComponent.Config.class)
public final class LayerComponent implements DevicePluginLayer, StatusSection, HeldFigures {

    private static final Logger LOG = LoggerFactory.getLogger(LayerComponent.class);

    @ObjectClassDefinition(name = "Device-plugin layer",
            description = "settings every device plugin shares")
    public @interface Config {
        @AttributeDefinition(description = "the node's /dev as kubelet and the container runtime see it: host path"
                + " of device nodes in Allocate and CDI specs (container paths are always /dev/...). Not where the"
                + " agent reads devices (discovery.devRoot)")
        String hostDevRoot() default "/dev";

        @AttributeDefinition(description = "CDI spec directories looked at when the agent starts: this agent's specs"
                + " (rdmanode.io-*.json) there stay until their pools start, and go when their pool is not"
                + " configured and no running container holds a device of it")
        String[] cdiSpecDirs() default {"/var/run/cdi"};
    }

    private volatile Layer layer;

    static final String STATE_DIR_PROPERTY = "rdma.agent.stateDir";
    static final String DEFAULT_STATE_DIR = "/var/lib/rdma-node-agent";

    /**
     * What running containers hold (kubelet's PodResources, or its checkpoint): the truth the allocation ledger in
     * {@code <rdma.agent.stateDir>/deviceplugin/allocations} is reconciled with. Dynamic: the kubelet host that
     * offers it starts the plugin bundles' pools while it activates, and they need this layer first.
     */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
               policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindKubelet")
    void bindKubelet(PodDevices podDevices) {
        kubelet = podDevices;
        Layer l = layer;
        if (l != null) {
            l.reconcileNow();
        }
    }

    void unbindKubelet(PodDevices podDevices) {
        if (kubelet == podDevices) {
            kubelet = null;
        }
    }

    private volatile PodDevices kubelet;

    /**
     * The launcher's handover, absent in tests and in a framework without the launcher (dynamic and greedy: the
     * handover bundle may start after this one). Once a successor owns the state directory, the ledger stops
     * writing it and this layer removes no file.
     */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
               policyOption = ReferencePolicyOption.GREEDY, unbind = "unbindHandover")
    void bindHandover(io.rdmanode.agent.Handover h) {
        handover = h;
        Layer started = layer;
        if (started != null) {               // DS binds after the constructor; checked all the same
            closeHandoverWatch();
            handoverWatch = h.onHandedOver(started::handedOver);
        }
    }

    void unbindHandover(io.rdmanode.agent.Handover h) {
        if (handover == h) {
            handover = null;
            closeHandoverWatch();
        }
    }

    private volatile io.rdmanode.agent.Handover handover;
    private volatile AutoCloseable handoverWatch = () -> { };

    /**
     * No file of a released device may go from this process: it is not (yet, or any more) the state directory's
     * writer. A successor still taking over has not merged what its predecessor allocated a moment ago.
     */
    private boolean mayNotRemoveFiles() {
        io.rdmanode.agent.Handover h = handover;
        if (h == null) {
            return false;
        }
        if (!h.writer()) {
            writerSince = 0;
            return true;
        }
        if (!h.tookOver()) {
            return false;                                  // a first start: nobody else allocated a moment ago
        }
        // Allocates kubelet sent the predecessor before it switched each resource are served there and recorded
        // in its memory only; kubelet's PodResources lists them at this layer's next reconciliations. Until then a
        // file of a device this layer believes released may be one the predecessor has just written.
        long now = System.nanoTime();
        if (writerSince == 0) {
            writerSince = now;
        }
        return now - writerSince < TimeUnit.SECONDS.toNanos(WRITER_SETTLE_SECONDS);
    }

    /** Two reconciliation periods: long enough for kubelet to switch every resource and list what it allocated. */
    static final long WRITER_SETTLE_SECONDS = 2 * Layer.RECONCILE_SECONDS;
    private volatile long writerSince;

    private void closeHandoverWatch() {
        try {
            handoverWatch.close();
        } catch (Exception e) {
            LOG.debug("handover watch not withdrawn: {}", e.getMessage());
        }
        handoverWatch = () -> { };
    }

    @Activate
    public LayerComponent(Config config, BundleContext context) {
        Path stateDir = Path.of(Optional.ofNullable(context.getProperty(STATE_DIR_PROPERTY)).orElse(DEFAULT_STATE_DIR));
        this.layer = new Layer(settings(config), stateDir.resolve("deviceplugin/allocations"),
                () -> Optional.ofNullable(kubelet), Duration.ofSeconds(Layer.RECONCILE_SECONDS), Layer.SETTLE,
                this::mayNotRemoveFiles);
        LOG.info("device-plugin layer started hostDevRoot={} cdiSpecDirs={}", layer.settings().paths().hostDevRoot(),
                layer.settings().cdiSpecDirs());
    }


    @org.osgi.service.component.annotations.Deactivate
    void stop() {
        closeHandoverWatch();
        layer.close();
    }

    /** @throws IllegalArgumentException what {@link DevicePluginValidator} refuses */
    static LayerSettings settings(Config c) {
        Map<String, String> problems = DevicePluginValidator.settingsProblems(c);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems.values()));
        }
        return new LayerSettings(new DevicePaths(Path.of(c.hostDevRoot())),
                Arrays.stream(c.cdiSpecDirs()).map(Path::of).toList());
    }

    @Override
    public LayerSettings settings() {
        return layer.settings();
    }

    @Override
    public List<CandidateDevice> candidates(HostSnapshot host, Granularity granularity) {
        return layer.candidates(host, granularity);
    }

    @Override
    public DeviceFile rdmaCm(HostSnapshot host) {
        return layer.rdmaCm(host);
    }

    @Override
    public ServedPool serve(ResourcePool pool, RdmaDiscovery discovery, DevicePluginHost host) {
        return layer.serve(pool, discovery, host);
    }

    @Override
    public io.rdmanode.deviceplugin.ServedPoolSet serve(io.rdmanode.deviceplugin.PoolSet set,
                                                        RdmaDiscovery discovery) {
        return layer.serve(set, discovery);
    }

    @Override
    public CdiSpec cdiSpec(Path dir, String kind, String owner, String resourceName) {
        return layer.cdiSpec(dir, kind, owner, resourceName);
    }

    @Override
    public List<io.rdmanode.deviceplugin.Ownership.Conflict> claim(io.rdmanode.deviceplugin.Ownership.Claim claim) {
        return layer.claim(claim);
    }

    @Override
    public void release(String resourceName) {
        layer.release(resourceName);
    }

    @Override
    public Map<String, String> held() {
        return layer.held();
    }

    @Override
    public OutsideHolder outsideHolder(String name) {
        return layer.outsideHolder(name);
    }

    @Override
    public List<HeldFigures.Held> heldDevices() {
        return layer.heldDevices().entries();
    }

    @Override
    public long released() {
        return layer.heldDevices().released();
    }

    @Override
    public StatusRegistry statusRegistry() {
        return layer.statusRegistry();
    }

    @Override
    public String name() {
        return "deviceplugin";
    }

    @Override
    public Object status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("hostDevRoot", layer.settings().paths().hostDevRoot().toString());
        m.put("cdiSpecDirs", layer.settings().cdiSpecDirs().stream().map(Path::toString).toList());
        m.put("cdiSpecsRemoved", layer.cdiSpecsRemoved());
        m.put("cdiSpecsKept", layer.cdiSpecsKept());
        Map<String, Object> owners = new java.util.TreeMap<>();
        layer.claims().values().forEach(c -> owners.put(c.pool(), (c.exclusive() ? "exclusive " : "shared ")
                + c.configuration() + " " + new java.util.TreeSet<>(c.devices())));
        m.put("owners", owners);
        m.put("held", layer.heldStatus());
        return m;
    }
}
