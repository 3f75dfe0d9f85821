// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import io.rdmanode.agent.Hocon;
import io.rdmanode.launcher.logging.LogFormat;
import io.rdmanode.launcher.logging.LogSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.slf4j.event.Level;

/**
 * The part of the HOCON file the launcher itself needs before the framework exists: {@code agent.runtime}
 * (state directory, logging, shutdown bound) and which bundles start disabled ({@code agent.bundles}).
 * Everything else is the config bundle's business; it also validates these keys on every edit.
 */
record RuntimeSettings(Path stateDir, Level logLevel, LogFormat logFormat, Duration shutdownTimeout,
        Set<String> disabledBundles, Set<String> enabledBundles) {

    RuntimeSettings(Path stateDir, Level logLevel, LogFormat logFormat, Duration shutdownTimeout,
                    Set<String> disabledBundles) {
        this(stateDir, logLevel, logFormat, shutdownTimeout, disabledBundles, Set.of());
    }

    static final Path DEFAULT_STATE_DIR = Path.of("/var/lib/rdma-node-agent");

    /** Reads the file; the state directory property must already be set if the file refers to it. */
    static RuntimeSettings read(Path file) {
        return read(file, resolve(file));
    }

    /** The file as the agent reads it: includes, then substitutions resolved as the config bundle does. */
    static Config resolve(Path file) {
        refuseOversized(file);
        Config parsed;
        try {
            parsed = ConfigFactory.parseFile(file.toFile(), ConfigParseOptions.defaults().setAllowMissing(false));
        } catch (IllegalArgumentException e) {
            // typesafe-config's tokenizer throws this for a backslash-u with a sign (HoconFile says more, and where).
            throw new IllegalArgumentException(file + ": a \\u escape in a quoted string must be followed by four"
                    + " hex digits (" + e.getMessage() + ")", e);
        }
        // The same resolution as the config bundle's; rdma.agent.stateDir is a JVM system property here.
        return Hocon.resolve(parsed, Hocon.substitutions(Map.of()));
    }

    /**
     * Parsed whole, a file of many megabytes exhausts a small heap before the config bundle could refuse it (a
     * 12 MB file ended check-config with OutOfMemoryError); refused here with the config bundle's own words.
     * An unreadable file is left to the parser, which says why.
     */
    private static void refuseOversized(Path file) {
        long size;
        try {
            size = Files.size(file);
        } catch (IOException e) {
            return;
        }
        if (size > Hocon.MAX_FILE_BYTES) {
            throw new IllegalArgumentException(file + ": " + Hocon.tooLarge(size));
        }
    }

    /** {@code config} is {@link #resolve(Path) resolved} from {@code file}, named in errors. */
    static RuntimeSettings read(Path file, Config config) {
        Config runtime = config.hasPath("agent.runtime") ? config.getConfig("agent.runtime") : ConfigFactory.empty();
        try {
            Path stateDir = runtime.hasPath("stateDir") ? Path.of(runtime.getString("stateDir")) : DEFAULT_STATE_DIR;
            Level level = runtime.hasPath("log.level") ? LogSettings.parseLevel(runtime.getString("log.level"))
                    : Level.INFO;
            LogFormat format = runtime.hasPath("log.format") ? LogFormat.parse(runtime.getString("log.format"))
                    : LogFormat.TEXT;
            Duration shutdown = runtime.hasPath("shutdownTimeout") ? runtime.getDuration("shutdownTimeout")
                    : Duration.ofSeconds(10);
            return new RuntimeSettings(stateDir, level, format, shutdown, bundleSwitches(config, false),
                    bundleSwitches(config, true));
        } catch (ConfigException | IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": agent.runtime: " + e.getMessage(), e);
        }
    }

    /**
     * The names whose {@code agent.bundles.<name>.enabled} is {@code value}: false = installed but not started;
     * true also installs an {@link OptionalBundles optional bundle} of that name.
     */
    private static Set<String> bundleSwitches(Config config, boolean value) {
        Set<String> names = new HashSet<>();
        if (config.hasPath("agent.bundles")) {
            Config bundles = config.getConfig("agent.bundles");
            for (String name : bundles.root().keySet()) {
                String key = "\"" + name + "\".enabled";
                if (bundles.hasPath(key) && bundles.getBoolean(key) == value) {
                    names.add(name);
                }
            }
        }
        return names;
    }
}
