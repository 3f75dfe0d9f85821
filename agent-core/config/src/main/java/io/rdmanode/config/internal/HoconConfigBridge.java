// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import io.rdmanode.agent.AgentProperties;
import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import io.rdmanode.health.StatusSection;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.BundleListener;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.MetaTypeService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HOCON file ({@code rdma.agent.config}, set by the launcher) applied to ConfigAdmin, live. Lifecycle and
 * wiring only: {@link ConfigReloader} does a reload, {@link ConfigFileWatcher} notices edits, and one worker
 * thread runs every reload in order, so two saves never interleave.
 */
@Component(service = {HealthCheck.class, StatusSection.class, ReloadCounts.class}, immediate = true)
public final class HoconConfigBridge implements HealthCheck, StatusSection, ReloadCounts {

    static final String CONFIG_PROPERTY = AgentProperties.CONFIG;
    private static final Logger LOG = LoggerFactory.getLogger(HoconConfigBridge.class);
    /**
     * Quiet time after the last event before the file is read: coalesces the events of one save (create temp,
     * write, rename; or truncate, pause, write). {@link SettledReload} says why it is trailing and bounded.
     */
    static final long DEBOUNCE_MS = 100;
    /** A file written without a pause is still read this long after its first event. */
    static final long MAX_WAIT_MS = 500;
    /** Safety net for file systems without change notification (some network and overlay mounts). */
    private static final Duration POLL = Duration.ofSeconds(2);

    private final ScheduledExecutorService worker;
    private final ConfigHistory history;
    private final ConfigReloader reloader;
    private final ConfigFileWatcher watcher;
    private final BundleSwitches switches;
    private final BundleListener bundleListener = this::bundleChanged;
    private final BundleContext context;
    private final SettledReload settledReload;
    private ScheduledFuture<?> pendingRemap;

    @Activate
    public HoconConfigBridge(BundleContext context, @Reference ConfigurationAdmin admin,
                             @Reference MetaTypeService metaType) throws IOException {
        String configured = context.getProperty(CONFIG_PROPERTY);
        if (configured == null || configured.isBlank()) {
            throw new IllegalStateException("framework property " + CONFIG_PROPERTY
                    + " is not set: the launcher names the config file there");
        }
        Path file = Path.of(configured).toAbsolutePath();
        this.context = context;
        this.history = new ConfigHistory(file.toString());
        this.switches = new BundleSwitches(context);
        this.reloader = new ConfigReloader(file, frameworkProperties(context),
                () -> MetaTypeSchemas.read(context, metaType), new ConfigAdminWriter(admin, file.toString()),
                switches, history, new LiveLoggingControl(context), new ConfigValidators(context),
                delayMs -> submit(this::readHeldRevision, delayMs));
        this.worker = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "rdma-agent-config-apply"));
        this.settledReload = new SettledReload(worker, file, guarded(reloader::reloadIfChanged), DEBOUNCE_MS,
                MAX_WAIT_MS);
        this.watcher = new ConfigFileWatcher(file, POLL, settledReload::fileChanged);
        // The first revision is applied before activation returns: components waiting for their configuration
        // get it without waiting for the first watch event.
        reloader.reloadIfChanged();
        List<String> refused = reloader.refusedWithNothingInForce();
        String unwritable = reloader.unwritableWithNothingInForce();
        if (!refused.isEmpty()) {
            // Refused by a check the launcher's own read cannot make (a type, a range, a validator): running on
            // built-in defaults (another port, /sys, kubelet's default directory) is worse than not starting.
            withStartupGate(context, g -> g.invalidConfiguration(refused));
        } else if (unwritable != null) {
            // Valid, but ConfigurationAdmin could not store it (its files are under the state directory: full, or
            // read-only): the components ran on built-in defaults, kubelet's real directory among them.
            withStartupGate(context, g -> g.unavailable("cannot apply the configuration " + file + ": " + unwritable
                    + "; the state directory (agent.runtime.stateDir, STATE_DIRECTORY) must be writable and have"
                    + " space"));
        }
        context.addBundleListener(bundleListener);
        watcher.start();
        LOG.info("watching config file={}", file);
    }

    private static void withStartupGate(BundleContext context,
                                        java.util.function.Consumer<io.rdmanode.agent.StartupGate> report) {
        org.osgi.framework.ServiceReference<io.rdmanode.agent.StartupGate> gate =
                context.getServiceReference(io.rdmanode.agent.StartupGate.class);
        if (gate != null) {
            io.rdmanode.agent.StartupGate g = context.getService(gate);
            if (g != null) {
                try {
                    report.accept(g);
                } finally {
                    context.ungetService(gate);
                }
            }
        }
    }

    @Override
    public long appliedCount() {
        return history.appliedCount();
    }

    @Override
    public long rejectedCount() {
        return history.rejectedCount();
    }

    @Deactivate
    void deactivate() throws IOException, InterruptedException {
        context.removeBundleListener(bundleListener);
        watcher.close();
        worker.shutdownNow();
        if (!worker.awaitTermination(5, TimeUnit.SECONDS)) {
            LOG.warn("config worker did not stop within 5 s");
        }
    }

    private void readHeldRevision() {
        reloader.reloadIfChanged();
    }

    private synchronized void scheduleRemap() {
        if (pendingRemap == null || pendingRemap.isDone()) {
            pendingRemap = submit(reloader::remap, 100);
        }
    }

    private ScheduledFuture<?> submit(Runnable task, long delayMs) {
        try {
            return worker.schedule(guarded(task), delayMs, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException stopping) {
            return null;
        }
    }

    /** A failure ends that reload, not the worker thread the next ones run on. */
    private static Runnable guarded(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.error("config reload failed: {}", e.toString(), e);
            }
        };
    }

    private void bundleChanged(BundleEvent event) {
        switch (event.getType()) {
            case BundleEvent.INSTALLED, BundleEvent.UPDATED, BundleEvent.UNINSTALLED, BundleEvent.RESOLVED ->
                    scheduleRemap();
            case BundleEvent.STARTED -> {
                Bundle bundle = event.getBundle();
                submit(() -> switches.enforce(bundle), 0);
            }
            default -> {
            }
        }
    }

    private static Map<String, String> frameworkProperties(BundleContext context) {
        Map<String, String> properties = new HashMap<>();
        for (String key : new String[] {AgentProperties.STATE_DIR, AgentProperties.CONFIG, AgentProperties.VERSION}) {
            String value = context.getProperty(key);
            if (value != null) {
                properties.put(key, value);
            }
        }
        return properties;
    }

    @Override
    public String name() {
        return "config";
    }

    @Override
    public Kind kind() {
        return Kind.READY;
    }

    @Override
    public HealthStatus check() {
        return history.health();
    }

    @Override
    public Object status() {
        return history.status();
    }
}
