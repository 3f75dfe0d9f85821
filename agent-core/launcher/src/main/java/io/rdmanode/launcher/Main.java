// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import io.rdmanode.launcher.logging.LogSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code bin/rdma-node-agent}: reads the runtime part of the configuration, starts the embedded framework on
 * the distribution's bundles, reports when the agent is ready, and stops it cleanly on SIGTERM.
 */
public final class Main {

    private static final int EXIT_USAGE = ExitCode.USAGE.code;
    private static final int EXIT_FAILURE = ExitCode.FAILURE.code;
    /** How often a started, not yet ready agent asks its own {@code /readyz}: cheap, and only until ready. */
    private static final long READY_POLL_MILLIS = 100;
    /** How long after its start a not yet ready agent polls at {@link #READY_POLL_MILLIS}. */
    private static final Duration FAST_READY_POLLS = Duration.ofSeconds(30);
    /** Set when start-up failed: the shutdown hook that then runs must not turn the exit into a success. */
    private static volatile boolean failedStart;
    /** Set when a component's start-up resource was unavailable: the shutdown hook exits with it. */
    private static volatile int requestedExit;

    private Main() {
    }

    public static void main(String[] args) {
        if (java.util.List.of(args).contains(PrintSettingCommand.OPTION)) {
            // The start script's question before each start: no framework, no logging set-up.
            System.exit(new PrintSettingCommand(System.out, System.err).run(defaultHome(), args));
            return;
        }
        Optional<Subcommand> subcommand = Subcommand.find(args, defaultHome());
        if (subcommand.isPresent()) {
            System.exit(subcommand.get().run());
            return;
        }
        LaunchOptions options;
        try {
            // The start script puts --home first: look for these anywhere.
            java.util.List<String> all = java.util.List.of(args);
            if (all.contains("--help") || all.contains("-h")) {
                System.out.print(LaunchOptions.HELP);
                return;
            }
            if (all.contains("--version")) {
                System.out.println("rdma-node-agent " + version());
                return;
            }
            options = LaunchOptions.parse(args, defaultHome());
        } catch (IllegalArgumentException e) {
            System.err.println("rdma-node-agent: " + e.getMessage());
            System.err.print(LaunchOptions.USAGE);
            System.exit(EXIT_USAGE);
            return;
        }
        System.exit(run(options));
    }

    static int run(LaunchOptions options) {
        Path configFile = options.configFile();
        if (!Files.isRegularFile(configFile) || !Files.isReadable(configFile)) {
            System.err.println("rdma-node-agent: config file " + configFile
                    + (Files.exists(configFile) ? " is not a readable file" : " does not exist")
                    + "; give another with --config PATH");
            return ExitCode.CONFIG_UNREADABLE.code;
        }
        Optional<Path> demoDir = Optional.empty();
        RuntimeSettings settings;
        com.typesafe.config.Config resolved;
        try {
            if (options.demo()) {
                demoDir = Optional.of(DemoHost.prepare(options.home()));
                System.setProperty(io.rdmanode.agent.AgentProperties.STATE_DIR, demoDir.get().toString());
            }
            resolved = RuntimeSettings.resolve(configFile);
            settings = RuntimeSettings.read(configFile, resolved);
            System.setProperty(io.rdmanode.agent.AgentProperties.STATE_DIR, settings.stateDir().toString());
        } catch (IOException e) {
            System.err.println("rdma-node-agent: cannot prepare the demo host: " + e.getMessage());
            return EXIT_FAILURE;
        } catch (IllegalArgumentException | com.typesafe.config.ConfigException e) {
            System.err.println("rdma-node-agent: " + e.getMessage() + " (check-config FILE lists every problem)");
            return ExitCode.CONFIG_INVALID.code;
        }
        Optional<PredecessorProbe.Predecessor> predecessor = PredecessorProbe.find(settings.stateDir(),
                Duration.ofSeconds(2));
        Optional<String> unavailable = StartupResources.firstUnavailable(configFile, resolved, settings, predecessor);
        if (unavailable.isPresent()) {
            System.err.println("rdma-node-agent: " + unavailable.get());
            demoDir.ifPresent(Main::deleteTree);
            return ExitCode.RESOURCE_UNAVAILABLE.code;
        }
        LogSettings.configure(settings.logLevel(), settings.logFormat());
        io.rdmanode.launcher.logging.JulBridge.install();
        Logger log = LoggerFactory.getLogger(Main.class);
        ignoreHangup(log);
        log.info("starting rdma-node-agent version={} config={} stateDir={} java={}", version(), configFile,
                settings.stateDir(), System.getProperty("java.version"));
        predecessor.ifPresent(p -> log.info("a predecessor runs on this state directory: pid={} doors={}; taking over",
                p.pid(), p.doors()));
        AgentFramework framework;
        try {
            framework = new AgentFramework(configFile, options.bundlesDir(), settings, version(), code -> {
                requestedExit = code;
                System.exit(code);
            });
        } catch (Exception e) {
            log.error("cannot create the framework: {}", e.toString(), e);
            return EXIT_FAILURE;
        }
        // Before start(): /readyz can answer while later bundles still start, and a SIGTERM then (systemd
        // stopping a unit that just came up) must get the same clean, exit-0 stop.
        Optional<Path> cleanup = demoDir;
        ReadinessProbe shared = new ReadinessProbe(settings.stateDir());
        SuccessorReadiness successor = new SuccessorReadiness(
                () -> shared.baseUrl().map(base -> ReadinessProbe.get(base + "/readyz")).orElse(-1));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stopOnSignal(framework, settings, successor, cleanup),
                "rdma-agent-launcher-shutdown"));
        try {
            framework.start();
        } catch (Exception e) {
            log.error("cannot start the framework: {}", e.toString(), e);
            failedStart = true;
            return EXIT_FAILURE;
        }
        framework.onHandedOver(successor::handedOver);
        if (options.exitAfterHandover() || System.getenv("NOTIFY_SOCKET") != null) {
            // A supervisor that started the successor (systemd's ExecReload) expects the old process to go.
            framework.onHandedOver(() -> {
                log.info("handed over to a successor: stopping");
                Thread exit = new Thread(() -> System.exit(0), "rdma-agent-launcher-handed-over");
                exit.start();
            });
        }
        reportReadiness(settings, options, resolved, framework, successor);
        try {
            framework.awaitStop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 0;
    }

    /**
     * SIGHUP: the JVM's default stops the process (a clean stop, every pool unregistered), which neither an operator
     * sending HUP to reload nor a closed terminal meant. The configuration file is re-read whenever it is saved and
     * {@code takeover} ({@code systemctl reload}) restarts without a gap, so HUP is logged and changes nothing.
     */
    private static void ignoreHangup(Logger log) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("HUP"), signal -> log.info("SIGHUP: nothing to do; the"
                    + " configuration file is re-read whenever it is saved, 'rdma-node-agent takeover' (systemctl"
                    + " reload) restarts without a gap, SIGTERM stops"));
        } catch (IllegalArgumentException unavailable) {
            // HUP already ignored (nohup) or not offered by this JVM (-Xrs): nothing to change
        }
        // SIGUSR1's default ends the process at once, with no stop at all: sockets and the demo's directory left
        // behind (exit 138). Log-rotation scripts send it to daemons to reopen their logs; the agent logs to
        // stdout, so there is nothing to reopen.
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("USR1"), signal -> log.info("SIGUSR1: nothing to do; the"
                    + " agent logs to its standard output, SIGTERM stops"));
        } catch (IllegalArgumentException unavailable) {
            // used by this JVM, or ignored by the parent
        }
    }

    /** Runs on SIGTERM/SIGINT: a bounded, clean stop, then exit 0 (or 1 when the bound was exceeded). */
    private static void stopOnSignal(AgentFramework framework, RuntimeSettings settings, SuccessorReadiness successor,
                                     Optional<Path> demoDir) {
        Logger log = LoggerFactory.getLogger(Main.class);
        long started = System.nanoTime();
        log.info("stopping rdma-node-agent timeout={}s", settings.shutdownTimeout().toSeconds());
        int code = 0;
        try {
            // Handed over: kubelet may not have switched every resource to the successor yet.
            successor.awaitBeforeStop(settings.shutdownTimeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        framework.linkLoadedClassesForTraining();             // while the bundles' class loaders still load
        try {
            if (!framework.stop(settings.shutdownTimeout())) {
                log.error("framework did not stop within {}s; exiting anyway", settings.shutdownTimeout().toSeconds());
                code = EXIT_FAILURE;
            }
        } catch (Exception e) {
            log.error("error while stopping the framework: {}", e.toString(), e);
            code = EXIT_FAILURE;
        }
        if (failedStart) {
            code = EXIT_FAILURE;
        }
        if (requestedExit != 0) {
            code = requestedExit;
        }
        CdsArchive.stopTraining();
        demoDir.ifPresent(Main::deleteTree);
        log.info("stopped in {} ms", Duration.ofNanos(System.nanoTime() - started).toMillis());
        System.err.flush();
        // The JVM would report a signal death (143); a clean stop is a success for systemd and kubelet.
        Runtime.getRuntime().halt(code);
    }

    /**
     * Reports the start once every bundle is active and every door serves ({@code /startedz}): the start-up
     * figure, the demo banner, {@code --exit-when-ready}. Readiness in Kubernetes' sense (every pool registered
     * with kubelet, {@code /readyz}) may come later or, without a kubelet (the demo), never: it is logged when it
     * comes, and why not until then.
     */
    private static void reportReadiness(RuntimeSettings settings, LaunchOptions options,
                                        com.typesafe.config.Config config, AgentFramework framework,
                                        SuccessorReadiness successor) {
        Thread reporter = new Thread(() -> {
            Logger log = LoggerFactory.getLogger(Main.class);
            ReadinessProbe probe = new ReadinessProbe(settings.stateDir());
            try {
                Optional<String> base = probe.awaitStarted(Duration.ofSeconds(60));
                if (base.isEmpty()) {
                    framework.ready(); // the start is over: what fails from now on is the components' to report
                    log.warn("agent not started after 60 s; see {}/readyz", probe.baseUrl().orElse("the HTTP endpoint"));
                    if (options.exitWhenReady()) {
                        Runtime.getRuntime().halt(EXIT_FAILURE);
                    }
                    // The start is over for systemd too: what is not ready is /readyz's to say, not a failed unit.
                    ReadyNotice.ofThisProcess().ready("started; not ready after 60 s, see /readyz");
                    return;
                }
                framework.ready();
                Instant now = Instant.now();
                // The JVM's own start, and the process's: the start script execs java in the same process, so
                // the second includes the script (and, in a build, whatever ran before the exec).
                long sinceJvm = now.toEpochMilli() - java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime();
                long sinceExec = Duration.between(ProcessHandle.current().info().startInstant().orElse(now), now)
                        .toMillis();
                // Readiness is this process's own answer (?pid): the failing lines are only for the log, and an
                // empty listing (no answer in time) is not a 200.
                boolean ready = ReadinessProbe.get(base.get() + "/readyz?pid=" + ProcessHandle.current().pid()) == 200;
                if (ready) {
                    successor.ready();
                }
                String notReady = ready ? "" : probe.notReadyBecause(base.get());
                log.info("agent started in {} ms from JVM start ({} ms from exec); status page {}/status; {}", sinceJvm,
                        sinceExec, base.get(), ready ? "ready"
                                : "not ready yet: " + (notReady.isEmpty() ? "see /readyz" : notReady));
                if (!options.exitWhenReady()) {               // a training run is not the unit's agent
                    ReadyNotice.ofThisProcess().ready("started; status page " + base.get() + "/status");
                }
                if (options.demo()) {
                    DemoBanner.lines(config, base.get(), settings.stateDir()).forEach(System.out::println);
                }
                if (options.exitWhenReady()) {
                    ReadinessProbe.get(base.get() + "/status");
                    System.exit(0);                           // the stop links what a training run loaded
                }
                CdsArchive.makeIfMissing(options.home());
                // Polled often while a kubelet is likely to answer soon (a handover soon after readiness must find
                // it noted, or the predecessor would stop before kubelet has switched to the successor), then once a
                // second: an agent no kubelet registers (the demo) does not ask itself ten times a second for ever.
                if (!ready && (probe.awaitReady(FAST_READY_POLLS, READY_POLL_MILLIS, successor::isHandedOver)
                        .isPresent() || probe.awaitReady(Duration.ofDays(3650), 1000, successor::isHandedOver)
                        .isPresent())) {
                    successor.ready();
                    log.info("agent ready: registered with kubelet ({} ms from JVM start)", Instant.now().toEpochMilli()
                            - java.lang.management.ManagementFactory.getRuntimeMXBean().getStartTime());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "rdma-agent-launcher-readiness");
        reporter.setDaemon(true);
        reporter.start();
    }

    static String version() {
        try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
            Properties properties = new Properties();
            if (in != null) {
                properties.load(in);
            }
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** The distribution directory: the launcher jar sits in {@code <home>/lib/}. */
    private static Path defaultHome() {
        try {
            Path jar = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return jar.getParent().getParent();
        } catch (URISyntaxException | RuntimeException e) {
            return Path.of(".");
        }
    }

    static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            LoggerFactory.getLogger(Main.class).warn("cannot delete {}: {}", root, e.getMessage());
        }
    }
}
