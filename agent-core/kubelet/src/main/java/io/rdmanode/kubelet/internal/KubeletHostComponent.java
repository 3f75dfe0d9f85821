// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import io.rdmanode.health.StatusSection;
import io.rdmanode.kubelet.DevicePlugin;
import io.rdmanode.kubelet.DevicePluginHost;
import io.rdmanode.kubelet.ResourceFigures;
import io.rdmanode.kubelet.ServedResource;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

/**
 * The device-plugin host as an OSGi service, with its {@code kubelet} health check (READY: every served
 * resource is registered, or kubelet is not there yet) and {@code /status} section. A settings change restarts the host, and with it
 * every plugin bundle's servers (SCR reactivates the dependents).
 */
@Component(service = {DevicePluginHost.class, HealthCheck.class, StatusSection.class},
        configurationPid = KubeletHostComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = KubeletHostComponent.Config.class)
public final class KubeletHostComponent implements DevicePluginHost, HealthCheck, StatusSection {

    static final String PID = "io.rdmanode.kubelet";

    @ObjectClassDefinition(name = "Kubelet device-plugin host",
            description = "Where kubelet's device-plugin sockets live and how registration behaves")
    public @interface Config {
        @AttributeDefinition(description = "kubelet's device-plugins directory; plugin sockets are created here")
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
                + " for kubelet's plugin watcher; auto: watcher when pluginsRegistryDir exists at start",
                options = {
                    @Option(label = "auto", value = "auto"),
                    @Option(label = "classic", value = "classic"),
                    @Option(label = "watcher", value = "watcher")})
        String registration() default "auto";

        @AttributeDefinition(description = "kubelet's plugin-watcher directory")
        String pluginsRegistryDir() default "/var/lib/kubelet/plugins_registry";
    }

    private final KubeletDevicePluginHost host;
    private final org.osgi.framework.ServiceRegistration<?> metrics;

    @Activate
    public KubeletHostComponent(Config config, org.osgi.framework.BundleContext context) throws IOException {
        Path dir = Path.of(config.pluginDir());
        this.host = new KubeletDevicePluginHost(new HostSettings(dir, dir.resolve(config.kubeletSocket()),
                config.registrationTimeout(), config.shutdownTimeout(), config.resyncInterval(),
                config.ioThreads(), HostSettings.Registration.valueOf(config.registration().toUpperCase(Locale.ROOT)),
                Path.of(config.pluginsRegistryDir())));
        this.metrics = registerMetrics(context, host);
    }

    /**
     * The figures go to the metrics bundle's whiteboard as a client_java {@code MultiCollector}. client_java is
     * an optional import: without lib-prometheus installed the host serves as usual, only without metrics.
     */
    private static org.osgi.framework.ServiceRegistration<?> registerMetrics(org.osgi.framework.BundleContext context,
                                                                            KubeletDevicePluginHost host) {
        try {
            return context.registerService(io.prometheus.metrics.model.registry.MultiCollector.class,
                    new DevicePluginCollector(host::servers), null);
        } catch (NoClassDefFoundError noPrometheus) {
            org.slf4j.LoggerFactory.getLogger(KubeletHostComponent.class)
                    .info("no Prometheus client bundle; device-plugin metrics are not exported");
            return null;
        }
    }

    @Deactivate
    void stop() {
        if (metrics != null) {
            metrics.unregister();
        }
        host.close();
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
        Map<String, String> unregistered = host.unregistered();
        if (unregistered.isEmpty()) {
            return HealthStatus.ok(host.figures().size() + " resource(s) registered with kubelet");
        }
        // Without kubelet there is nobody to register with: the agent has done its part and registers as soon
        // as kubelet.sock appears. Only a kubelet that is there and refuses us makes the agent not ready.
        if (host.watcherMode()) {
            Map<String, String> refused = host.refused();
            return refused.isEmpty()
                    ? HealthStatus.ok("waiting for kubelet's plugin watcher to find " + unregistered.keySet())
                    : HealthStatus.failing("not registered with kubelet: " + refused);
        }
        if (!host.kubeletPresent()) {
            return HealthStatus.ok("waiting for kubelet (" + host.kubeletSocket() + " absent) to register "
                    + unregistered.keySet());
        }
        return HealthStatus.failing("not registered with kubelet: " + unregistered);
    }

    @Override
    public Object status() {
        return host.status();
    }
}
