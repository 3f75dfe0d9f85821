// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import io.rdmanode.agent.AgentProperties;
import io.rdmanode.agent.Handover;
import io.rdmanode.agent.LoggingControl;
import io.rdmanode.agent.StartupBarrier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.felix.framework.Felix;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.ServiceReference;
import org.osgi.util.tracker.ServiceTracker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The embedded Felix framework with the agent's properties, filled from and kept in sync with {@code bundles/}. */
final class AgentFramework implements AutoCloseable {

    /** Tells the health bundle that {@link #STARTUP_PROPERTY} will announce the end of start-up. */
    static final String STARTUP_SIGNAL_PROPERTY = "rdma.agent.startupSignal";
    static final String STARTUP_PROPERTY = "rdma.agent.startup";

    private static final Logger LOG = LoggerFactory.getLogger(AgentFramework.class);
    private static final String SLF4J_VERSION = "2.0.17";
    /** The version of {@code io.rdmanode.agent} (its package-info {@code @Version}). */
    static final String AGENT_API_VERSION = "1.8.0";
    /** typesafe-config on the class path; the platform API's {@code Hocon} names its types. */
    static final String TYPESAFE_CONFIG_VERSION = "1.4.9";

    /** The most the bundles not needed to serve kubelet wait for its first registrations ({@link StartupBarrier}). */
    static final Duration BARRIER_BOUND = Duration.ofSeconds(1);

    private final Felix felix;
    private final Path bundlesDir;
    private final List<Path> optionalJars;
    private final Set<String> disabledBundles;
    private final org.slf4j.event.Level logLevel;
    private final io.rdmanode.launcher.logging.LogFormat logFormat;
    private BundleDirectoryWatcher watcher;
    private final Path configFile;
    private final java.util.function.IntConsumer exit;
    private volatile LauncherStartupGate startupGate;
    private final FelixCacheSlot cacheSlot;
    private final BundleCache bundleCache;

    AgentFramework(Path configFile, Path bundlesDir, RuntimeSettings settings, String version) throws IOException {
        this(configFile, bundlesDir, settings, version, System::exit);
    }

    /** @param exit how a component's unavailable start-up resource ends the process ({@link LauncherStartupGate}) */
    AgentFramework(Path configFile, Path bundlesDir, RuntimeSettings settings, String version,
                   java.util.function.IntConsumer exit) throws IOException {
        this.configFile = configFile;
        this.exit = exit;
        Files.createDirectories(settings.stateDir());
        this.cacheSlot = FelixCacheSlot.claim(settings.stateDir());
        // The cache is kept from one start to the next, but only what its record vouches for is reloaded: the
        // bundles directory stays the only source of truth (BundleDirectory.adopt), and a cache from another
        // framework build, or without a record, is removed first.
        this.bundleCache = BundleCache.prepare(cacheSlot.directory(), BundleCache.runningFramework());
        Map<String, Object> properties = new HashMap<>();
        properties.put(Constants.FRAMEWORK_STORAGE, cacheSlot.directory().toString());
        properties.put(Constants.FRAMEWORK_SYSTEMPACKAGES_EXTRA, systemPackagesExtra());
        properties.put("felix.log.logger", new FelixLogBridge());
        properties.put("ds.loglevel", "warn");
        properties.put(AgentProperties.CONFIG, configFile.toString());
        properties.put(AgentProperties.STATE_DIR, settings.stateDir().toString());
        properties.put(AgentProperties.VERSION, version);
        properties.put(AgentProperties.STARTED_AT, Instant.now().toString());
        properties.put(STARTUP_SIGNAL_PROPERTY, "service");
        CdsArchive.inUse().ifPresent(cds -> properties.put(CdsArchive.STATUS_PROPERTY, cds));
        this.felix = new Felix(properties);
        this.bundlesDir = bundlesDir;
        this.disabledBundles = settings.disabledBundles();
        this.optionalJars = OptionalBundles.selected(OptionalBundles.dirBeside(bundlesDir), bundlesDir,
                settings.enabledBundles());
        this.logLevel = settings.logLevel();
        this.logFormat = settings.logFormat();
    }

    /**
     * What the launcher's class path shares with the bundles, one copy for both: SLF4J (the logging backend is
     * the launcher's), the platform API (the launcher implements {@link LoggingControl}) and typesafe-config,
     * whose types the API's HOCON helper names (a second copy in a bundle would be a different class).
     */
    static String systemPackagesExtra() {
        String slf4j = ";version=" + SLF4J_VERSION;
        String config = ";version=" + TYPESAFE_CONFIG_VERSION;
        return "org.slf4j" + slf4j + ",org.slf4j.event" + slf4j + ",org.slf4j.helpers" + slf4j + ",org.slf4j.spi" + slf4j
                + ",com.typesafe.config" + config + ",com.typesafe.config.impl" + config
                + ",io.rdmanode.agent;version=" + AGENT_API_VERSION + ";uses:=\"com.typesafe.config,org.slf4j\"";
    }

    /** Starts the framework, installs every jar of the bundles directory, then watches it for changes. */
    BundleDirectory.Changes start() throws BundleException, IOException {
        felix.init();
        BundleDirectory directory = new BundleDirectory(bundlesDir, optionalJars, felix.getBundleContext(),
                disabledBundles);
        directory.adopt(bundleCache);
        optionalJars.forEach(jar -> LOG.info("optional bundle switched on by agent.bundles: {}", jar));
        felix.start();
        LiveLogging.register(felix.getBundleContext(), logLevel, logFormat);
        startupGate = LauncherStartupGate.register(felix.getBundleContext(), configFile, exit);
        directory.beforeTheRest(this::awaitStartupBarriers);
        BundleDirectory.Changes changes = directory.sync();
        // /readyz is served from the moment the health bundle starts; it answers 200 only after this, when
        // every enabled bundle has been started (and so its components are known to SCR).
        felix.getBundleContext().registerService(Object.class, new Object(),
                new java.util.Hashtable<>(Map.of(STARTUP_PROPERTY, "complete")));
        watcher = new BundleDirectoryWatcher(directory, Duration.ofMillis(250), Duration.ofSeconds(5));
        watcher.start();
        LOG.info("framework started bundles={} failed={}", changes.installed().size(), changes.failed());
        return changes;
    }

    /** In a class-data-sharing training run, links the bundle classes it loaded ({@link CdsClassLinker}). */
    void linkLoadedClassesForTraining() {
        CdsClassLinker.classLog().ifPresent(log -> CdsClassLinker.linkLoaded(log, felix.getBundleContext().getBundles()));
    }

    /**
     * Lets the kubelet bundle's first registrations settle ({@link StartupBarrier}) before the bundles that do not
     * serve kubelet start, bounded by {@link #BARRIER_BOUND} in all: a Register normally answers within
     * milliseconds, and a kubelet that hangs must not hold the HTTP endpoint back for its whole timeout.
     */
    private void awaitStartupBarriers() {
        long started = System.nanoTime();
        long deadline = started + BARRIER_BOUND.toNanos();
        BundleContext context = felix.getBundleContext();
        try {
            for (ServiceReference<StartupBarrier> ref : context.getServiceReferences(StartupBarrier.class, null)) {
                StartupBarrier barrier = context.getService(ref);
                if (barrier == null) {
                    continue;
                }
                try {
                    if (!barrier.awaitSettled(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                        LOG.info("start-up barrier of bundle={} not settled within {} ms; starting the rest",
                                ref.getBundle().getSymbolicName(), BARRIER_BOUND.toMillis());
                    }
                } finally {
                    context.ungetService(ref);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (org.osgi.framework.InvalidSyntaxException | RuntimeException e) {
            LOG.warn("cannot ask the start-up barriers: {}", e.toString());
        }
        LOG.debug("start-up barriers settled in {} ms", (System.nanoTime() - started) / 1_000_000);
    }

    /** The agent was ready once: a resource a component cannot get no longer stops it ({@link LauncherStartupGate}). */
    void ready() {
        LauncherStartupGate gate = startupGate;
        if (gate != null) {
            gate.ready();
        }
    }

    /** Stops every bundle (components deactivate, sockets close); false when it took longer than the bound. */
    boolean stop(Duration timeout) throws BundleException, InterruptedException, IOException {
        if (watcher != null) {
            watcher.close();
        }
        felix.stop();
        FrameworkEvent event = felix.waitForStop(timeout.toMillis());
        boolean stopped = event.getType() != FrameworkEvent.WAIT_TIMEDOUT;
        if (stopped) {
            cacheSlot.close();
        }
        return stopped;
    }

    /** Runs {@code action} once this process has handed over to a successor ({@link Handover#onHandedOver}). */
    void onHandedOver(Runnable action) {
        BundleContext context = felix.getBundleContext();
        if (context == null) {
            return;     // the framework is stopping already (a start refused: exit 5 or 6); nothing to hand over
        }
        try {
            new ServiceTracker<Handover, Handover>(context, Handover.class, null) {
                @Override
                public Handover addingService(ServiceReference<Handover> reference) {
                    Handover handover = super.addingService(reference);
                    handover.onHandedOver(action);
                    return handover;
                }
            }.open();
        } catch (IllegalStateException stopping) {
            // the context went invalid meanwhile: the same
        }
    }

    /** Blocks until the framework has stopped, whoever stopped it. */
    void awaitStop() throws InterruptedException {
        felix.waitForStop(0);
    }

    Felix felix() {
        return felix;
    }

    @Override
    public void close() throws Exception {
        stop(Duration.ofSeconds(10));
    }
}
