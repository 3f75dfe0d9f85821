// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import io.rdmanode.health.StatusSection;
import io.rdmanode.kubelet.DevicePlugin;
import io.rdmanode.kubelet.DevicePluginHost;
import io.rdmanode.kubelet.PodDevices;
import io.rdmanode.kubelet.PodHoldings;
import io.rdmanode.kubelet.ResourceFigures;
import io.rdmanode.kubelet.ServedResource;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

/**
 * The device-plugin host as an OSGi service, with its {@code kubelet} health check (READY: every served
 * resource is registered and its ListAndWatch stream held, see {@link KubeletReadiness}) and {@code /status} section; and {@link PodDevices}, what
 * running pods hold per kubelet's pod-resources API or checkpoint (its socket and deadline apply in place).
 *
 * <p>Settings changes ({@link #modified}): the timeouts and the resync interval are tuning and apply in place,
 * because closing a socket makes kubelet mark the resource unallocatable until it is registered again (and
 * kubelet 1.26 may kill a pod it re-admits in that window). The directories, the kubelet socket, the mode and
 * the I/O threads decide where the sockets are: a change there restarts the host, and with it every plugin
 * bundle's servers (its {@link DevicePluginHost} service is withdrawn and offered again).
 */
@Component(service = {HealthCheck.class, StatusSection.class, ServerFigures.class, PodDevices.class,
        io.rdmanode.agent.StartupBarrier.class},
        immediate = true,
        configurationPid = KubeletHostComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = KubeletHostComponent.Config.class)
public final class KubeletHostComponent implements DevicePluginHost, HealthCheck, StatusSection, ServerFigures,
        PodDevices, io.rdmanode.agent.StartupBarrier {

    static final String PID = "io.rdmanode.kubelet";

    @ObjectClassDefinition(name = "Kubelet device-plugin host",
            description = "Where kubelet's device-plugin sockets live and how registration behaves")
    public @interface Config {
        // MetaType bounds a String's length (checked by the config bridge before anything applies, with file,
        // line and key); the host checks the byte length again, for non-ASCII paths, and reports in /readyz.
        @AttributeDefinition(description = "kubelet's device-plugins directory; plugin sockets are created here."
                + " At most " + ResourceNames.MAX_SOCKET_DIR + " characters: every socket path must fit sun_path ("
                + ResourceNames.SUN_PATH_MAX + " bytes)", min = "1", max = "" + ResourceNames.MAX_SOCKET_DIR)
        String pluginDir() default "/var/lib/kubelet/device-plugins";

        @AttributeDefinition(description = "kubelet's registration socket, relative to pluginDir")
        String kubeletSocket() default "kubelet.sock";

        @AttributeDefinition(description = "milliseconds a Register call may take", min = "100", max = "60000")
        long registrationTimeout() default 5000;

        @AttributeDefinition(description = "milliseconds a server may take to stop before it is forced",
                min = "0", max = "60000")
        long shutdownTimeout() default 5000;

        @AttributeDefinition(description = "milliseconds between safety-net checks of sockets and registrations",
                min = "100", max = "600000")
        long resyncInterval() default 5000;

        @AttributeDefinition(description = "event loop threads shared by all plugin servers", min = "1", max = "16")
        int ioThreads() default 2;

        @AttributeDefinition(description = "classic: Register on kubelet.sock; watcher: socket in pluginsRegistryDir"
                + " for kubelet's plugin watcher; auto: watcher when pluginsRegistryDir exists at start and kubelet"
                + " calls GetInfo within getInfoDeadline, else classic",
                options = {
                    @Option(label = "auto", value = "auto"),
                    @Option(label = "classic", value = "classic"),
                    @Option(label = "watcher", value = "watcher")})
        String registration() default "auto";

        @AttributeDefinition(description = "kubelet's plugin-watcher directory. At most "
                + ResourceNames.MAX_SOCKET_DIR + " characters, as pluginDir", min = "1",
                max = "" + ResourceNames.MAX_SOCKET_DIR)
        String pluginsRegistryDir() default "/var/lib/kubelet/plugins_registry";

        @AttributeDefinition(description = "registration = auto: milliseconds kubelet's plugin watcher has to call"
                + " GetInfo on the first socket in pluginsRegistryDir before every pool registers through"
                + " kubelet.sock instead (kubelet calls within about a second)", min = "100", max = "60000")
        long getInfoDeadline() default HostSettings.DEFAULT_GET_INFO_DEADLINE;

        @AttributeDefinition(description = "kubelet's pod-resources socket (v1.PodResourcesLister), what running"
                + " pods hold; kubelet_internal_checkpoint in pluginDir is read when it does not answer. An"
                + " absolute path of at most " + ResourceNames.SUN_PATH_MAX + " bytes", min = "1",
                max = "" + ResourceNames.SUN_PATH_MAX)
        String podResourcesSocket() default PodResourcesSettings.DEFAULT_SOCKET;

        @AttributeDefinition(description = "milliseconds a pod-resources List call may take before the checkpoint"
                + " is read instead", min = "100", max = "60000")
        long podResourcesTimeout() default 1000;
    }

    private final org.osgi.framework.BundleContext context;
    private volatile KubeletDevicePluginHost host;
    private volatile String refusal;
    private final KubeletPodDevices podDevices;
    private org.osgi.framework.ServiceRegistration<?> hostService;      // guarded by this

    @Activate
    public KubeletHostComponent(Config config, Map<String, Object> properties,
                                org.osgi.framework.BundleContext context,
                                @org.osgi.service.component.annotations.Reference(cardinality =
                                        org.osgi.service.component.annotations.ReferenceCardinality.OPTIONAL)
                                io.rdmanode.agent.StartupGate startup,
                                @org.osgi.service.component.annotations.Reference(cardinality =
                                        org.osgi.service.component.annotations.ReferenceCardinality.OPTIONAL)
                                io.rdmanode.agent.Handover handover) throws IOException {
        this.context = context;
        this.handover = handover;
        refusal = refusal(properties);
        // A missing directory is kubelet's to create (the host waits for it); a file in its place never becomes one.
        Path pluginDir = Path.of(config.pluginDir());
        if (startup != null && java.nio.file.Files.exists(pluginDir) && !java.nio.file.Files.isDirectory(pluginDir)) {
            startup.unavailable("cannot serve device plugins in " + pluginDir + ": it is not a directory; change"
                    + " kubelet.pluginDir to kubelet's device-plugins directory");
        }
        podDevices = new KubeletPodDevices(podResources(config));
        try {
            start(settings(config));
        } catch (IOException | RuntimeException e) {
            podDevices.close();
            throw e;
        }
        // Absent in tests and without the launcher. The host in place at the handover stops registering.
        // A successor that dies before it is ready leaves kubelet with its dead endpoints: registered here again.
        if (handover == null) {
            this.handoverWatch = () -> { };
        } else {
            AutoCloseable handedOver = handover.onHandedOver(() -> host.handedOver());
            AutoCloseable lost = handover.onSuccessorLost(() -> host.successorLost());
            this.handoverWatch = () -> {
                handedOver.close();
                lost.close();
            };
        }
    }

    KubeletHostComponent(Config config, Map<String, Object> properties, org.osgi.framework.BundleContext context)
            throws IOException {
        this(config, properties, context, null, null);
    }

    private AutoCloseable handoverWatch;
    private final io.rdmanode.agent.Handover handover;

    /**
     * What {@link KubeletHostValidator} refuses, for {@code /readyz}: a configuration the validator let through
     * (none should reach here) still makes the agent not ready rather than serve where kubelet does not look.
     */
    private static String refusal(Map<String, Object> properties) {
        Map<String, String> problems = KubeletHostValidator.problems(properties);
        if (problems.isEmpty()) {
            return "";
        }
        String text = String.join("; ", problems.values());
        org.slf4j.LoggerFactory.getLogger(KubeletHostComponent.class).error("kubelet configuration refused: {}", text);
        return text;
    }

    static HostSettings settings(Config config) {
        Path dir = Path.of(config.pluginDir());
        return new HostSettings(dir, dir.resolve(config.kubeletSocket()),
                config.registrationTimeout(), config.shutdownTimeout(), config.resyncInterval(),
                config.ioThreads(), HostSettings.Registration.valueOf(config.registration().toUpperCase(Locale.ROOT)),
                Path.of(config.pluginsRegistryDir()), config.getInfoDeadline());
    }

    static PodResourcesSettings podResources(Config config) {
        return new PodResourcesSettings(Path.of(config.podResourcesSocket()),
                Path.of(config.pluginDir()).resolve(KubeletCheckpoint.FILE_NAME), config.podResourcesTimeout(),
                PodResourcesSettings.DEFAULT_MAX_INBOUND_BYTES);
    }

    /**
     * The host and its {@link DevicePluginHost} service. The service is registered here rather
     * than by SCR so that a restart of the host ({@link #modified}) withdraws it and offers it again: the plugin
     * components holding it are deactivated and activated on the new host, as a reactivation of this component
     * would do, while its health check and status section stay.
     */
    private synchronized void start(HostSettings settings) throws IOException {
        KubeletDevicePluginHost started = new KubeletDevicePluginHost(settings);
        if (handover != null && handover.handedOver()) {
            started.handedOver();                  // a host restarted after the handover registers nothing either
        }
        this.host = started;
        this.hostService = context.registerService(DevicePluginHost.class, started, null);
    }

    private synchronized void close() {
        if (hostService != null) {
            hostService.unregister();          // the plugin components close their servers now
            hostService = null;
        }
        host.close();
    }

    /**
     * Tuning (timeouts, resync interval) applies in place: no socket closes, nothing registers again. A change
     * that moves the sockets (directories, kubelet socket, mode, I/O threads) restarts the host: its service is
     * withdrawn (the plugin components stop serving), the host stops, a new one starts and is offered again.
     */
    @Modified
    void modified(Config config, Map<String, Object> properties) throws IOException {
        refusal = refusal(properties);
        podDevices.update(podResources(config));
        HostSettings next = settings(config);
        if (host.retune(next)) {
            return;                            // tuning only: same sockets, same streams
        }
        org.slf4j.LoggerFactory.getLogger(KubeletHostComponent.class).info("device-plugin sockets move ({} -> {}):"
                + " restarting the host", host.tuning().identity(), next.resolved().identity());
        synchronized (this) {
            close();
            start(next);
        }
    }

    /** Test access: the settings in force. */
    HostSettings tuning() {
        return host.tuning();
    }

    @Override
    public List<DevicePluginServer> servers() {
        return host.servers();
    }

    @Deactivate
    void stop() {
        try {
            handoverWatch.close();
        } catch (Exception e) {
            org.slf4j.LoggerFactory.getLogger(KubeletHostComponent.class).debug("handover watch: {}", e.getMessage());
        }
        close();
        podDevices.close();
    }

    /**
     * The launcher's question before it starts the bundles not needed to serve kubelet: every pool served so far
     * has had its first registration attempt (after a crash, pods wait for exactly that).
     */
    @Override
    public boolean awaitSettled(java.time.Duration timeout) throws InterruptedException {
        return host.awaitFirstRegistrations(timeout);
    }

    @Override
    public PodHoldings running() {
        return podDevices.running();
    }

    @Override
    public ServedResource serve(DevicePlugin plugin) {
        return host.serve(plugin);
    }

    @Override
    public List<ResourceFigures> figures() {
        return host.figures();
    }

    @Override
    public String name() {
        return "kubelet";
    }

    @Override
    public Kind kind() {
        return Kind.READY;
    }

    @Override
    public HealthStatus check() {
        if (!refusal.isEmpty()) {
            return HealthStatus.failing("kubelet configuration refused: " + refusal);
        }
        return KubeletReadiness.of(host);
    }

    @Override
    public Object status() {
        Map<String, Object> m = new LinkedHashMap<>(host.status());
        m.put("podResources", podDevices.status());
        return m;
    }
}
