// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import io.rdmanode.agent.AgentProperties;
import io.rdmanode.agent.ConfigCheck;
import io.rdmanode.launcher.logging.LogFormat;
import io.rdmanode.launcher.logging.LogSettings;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.felix.framework.Felix;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.util.tracker.ServiceTracker;
import org.slf4j.event.Level;

/**
 * {@code rdma-node-agent check-config FILE}: the configuration checked offline, exactly as the running agent
 * would check it, before an operator rolls it out (like {@code nginx -t} or {@code promtool check config}).
 *
 * <p>It starts a framework of its own on a temporary cache with every bundle of the distribution installed,
 * so every bundle's MetaType is known, but starts only what the check needs: SCR, MetaType and the config
 * bundle, whose {@link ConfigCheck} service does the work. No ConfigurationAdmin runs, so the config bridge
 * stays unsatisfied and nothing is applied; no endpoint, socket or device is touched.
 *
 * <p>The components' own checks ({@code io.rdmanode.agent.ConfigValidator}, named in each bundle's
 * {@code Agent-Config-Validator} header) run too: the config bundle loads them from the installed, unstarted
 * bundles, which resolve on that first class load. Their bundles are deliberately not started: starting them
 * would start their components (sockets, the CNI executable's install). So a validator's optional services
 * ({@code Proposal.service}) are absent here and it skips what needs the host (which device each pool holds).
 */
final class CheckConfigCommand {

    static final String USAGE = """
            usage: rdma-node-agent check-config [--strict] [--demo] FILE
              checks FILE as the running agent would (syntax, types, ranges, options, required and unknown
              keys, against the MetaType of this distribution's bundles, then each bundle's own check of its
              values, and the start script's own reading of agent.runtime); prints file:line: key: message lines
              --strict   warnings (e.g. a section no bundle declares) fail the check too
              --demo     as `rdma-node-agent --demo --config FILE` reads it: ${rdma.agent.stateDir} is the demo's
                         state directory (without --demo nothing defines it before agent.runtime is read)
            exit status: 0 valid, 6 invalid, 4 FILE missing or unreadable, 2 usage, 1 the check could not run,
            3 the JVM ran out of memory
            """;
    static final int EXIT_INVALID = ExitCode.CONFIG_INVALID.code;
    static final int EXIT_USAGE = ExitCode.USAGE.code;
    /** What the check needs started; everything else stays installed and resolved only. */
    private static final Set<String> STARTED = Set.of("org.apache.felix.scr", "org.apache.felix.metatype",
            "org.osgi.util.promise", "org.osgi.util.function", "io.rdmanode.config");
    private static final long SERVICE_TIMEOUT_MS = 30_000;

    private final PrintStream out;
    private final PrintStream err;

    CheckConfigCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    int run(Path home, String[] args) {
        boolean strict = false;
        boolean demo = false;
        Path file = null;
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                out.print(USAGE);
                return ExitCode.OK.code;
            } else if (arg.equals("--strict")) {
                strict = true;
            } else if (arg.equals("--demo")) {
                demo = true;
            } else if (arg.startsWith("-") || file != null) {
                err.println("rdma-node-agent check-config: unexpected argument '" + arg + "'");
                err.print(USAGE);
                return EXIT_USAGE;
            } else {
                file = Path.of(arg).toAbsolutePath();
            }
        }
        if (file == null) {
            err.print(USAGE);
            return EXIT_USAGE;
        }
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            err.println("rdma-node-agent check-config: " + file + (Files.exists(file) ? " is not a readable file"
                    : " does not exist"));
            return ExitCode.CONFIG_UNREADABLE.code;
        }
        // The agent's own logging is for the agent; here only the verdict is printed.
        LogSettings.configure(Level.ERROR, LogFormat.TEXT);
        ConfigCheck.Result result;
        try {
            result = check(home.resolve("bundles"), file);
        } catch (IOException | BundleException | RuntimeException e) {
            err.println("rdma-node-agent check-config: cannot run the check: " + e.getMessage());
            return ExitCode.FAILURE.code;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return ExitCode.FAILURE.code;
        }
        if (result.valid() && !demo) {
            result = withLauncherReading(file, result);
        }
        result.errors().forEach(out::println);
        result.warnings().forEach(w -> out.println("warning: " + w));
        boolean ok = result.valid() && (!strict || result.warnings().isEmpty());
        out.println(file + ": " + (ok ? "ok" : "invalid") + " (" + result.errors().size() + " error(s), "
                + result.warnings().size() + " warning(s))");
        if (!ok) {
            // The reference: the shipped agent.conf documents every key in place, with its default and range.
            out.println("every key, its default and accepted values: " + home.resolve("config").resolve("agent.conf"));
        }
        return ok ? 0 : EXIT_INVALID;
    }

    /**
     * The launcher reads {@code agent.runtime} (state directory, logging) before any bundle runs, resolving the
     * file with nothing but the JVM's properties and the environment: a file the bundles accept can still be
     * refused there (exit 6), e.g. one naming paths through {@code ${rdma.agent.stateDir}}, which only
     * {@code --demo} defines at that point. A check that passed such a file would be worse than none.
     */
    private static ConfigCheck.Result withLauncherReading(Path file, ConfigCheck.Result result) {
        try {
            RuntimeSettings.read(file, RuntimeSettings.resolve(file));
            return result;
        } catch (IllegalArgumentException | com.typesafe.config.ConfigException e) {
            String message = e.getMessage();
            if (message.contains("${" + AgentProperties.STATE_DIR + "}")) {
                message += " (rdma.agent.stateDir is defined only by --demo when the start reads this file: name"
                        + " paths in full; for a demo configuration, check-config --demo)";
            }
            List<String> errors = new ArrayList<>(result.errors());
            errors.add(message);
            return new ConfigCheck.Result(errors, result.warnings());
        }
    }

    private static ConfigCheck.Result check(Path bundles, Path file)
            throws IOException, BundleException, InterruptedException {
        // Short: a file may put sockets under ${rdma.agent.stateDir} (demo.conf), and sun_path is 107 bytes.
        Path scratch = Files.createTempDirectory("rna-check-");
        Felix felix = new Felix(properties(scratch));
        try {
            felix.init();
            felix.start();
            List<Bundle> installed = install(felix.getBundleContext(), bundles, optionalSwitchedOn(bundles, file));
            for (Bundle bundle : installed) {
                if (STARTED.contains(bundle.getSymbolicName())) {
                    bundle.start();
                }
            }
            ServiceTracker<ConfigCheck, ConfigCheck> tracker =
                    new ServiceTracker<>(felix.getBundleContext(), ConfigCheck.class, null);
            tracker.open();
            try {
                ConfigCheck check = tracker.waitForService(SERVICE_TIMEOUT_MS);
                if (check == null) {
                    throw new IllegalStateException("the config bundle offered no ConfigCheck service within "
                            + SERVICE_TIMEOUT_MS / 1000 + " s (is bundles/ complete?)");
                }
                return check.check(file);
            } finally {
                tracker.close();
            }
        } finally {
            felix.stop();
            felix.waitForStop(10_000);
            Main.deleteTree(scratch);
        }
    }

    private static Map<String, Object> properties(Path scratch) {
        Map<String, Object> properties = new HashMap<>();
        properties.put(Constants.FRAMEWORK_STORAGE, scratch.resolve("felix-cache").toString());
        properties.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        properties.put(Constants.FRAMEWORK_SYSTEMPACKAGES_EXTRA, AgentFramework.systemPackagesExtra());
        properties.put("felix.log.logger", new FelixLogBridge());
        properties.put("ds.loglevel", "error");
        // Substitutions a file may use (demo.conf's ${rdma.agent.stateDir}): the checker's scratch directory.
        properties.put(AgentProperties.STATE_DIR, scratch.toString());
        properties.put(AgentProperties.VERSION, Main.version());
        return properties;
    }

    /**
     * The optional bundles the file switches on, so that their own checks judge their sections as the agent
     * started with this file would; none when the file cannot be read that far (the check reports why).
     */
    private static List<Path> optionalSwitchedOn(Path bundles, Path file) {
        try {
            return OptionalBundles.selected(OptionalBundles.dirBeside(bundles), bundles,
                    RuntimeSettings.read(file).enabledBundles());
        } catch (RuntimeException e) {
            return List.of();
        }
    }

    private static List<Bundle> install(BundleContext context, Path bundles, List<Path> optional)
            throws IOException, BundleException {
        List<Path> jars = new ArrayList<>();
        try (Stream<Path> listing = Files.list(bundles)) {
            listing.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().forEach(jars::add);
        }
        jars.addAll(optional);
        List<Bundle> installed = new ArrayList<>();
        for (Path jar : jars) {
            installed.add(context.installBundle(jar.toUri().toString()));
        }
        return installed;
    }
}
