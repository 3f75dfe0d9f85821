// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * {@code rdma-node-agent --print-setting KEY [--config PATH]}: one setting of the configuration file as the
 * agent resolves it (the launcher's own HOCON reading: includes, {@code ${?ENV}} and system-property
 * substitutions, the launcher's defaults), printed alone on stdout. The start script reads what it needs
 * (the state directory, for the class-data archive) this way instead of searching the file's text, which
 * found the last {@code stateDir} of any section. No framework starts: 0.13-0.17 s of CPU with the packaged
 * class-data archive, once per agent start.
 *
 * <p>KEY is a full HOCON path. The launcher's settings ({@link #LAUNCHER}) have their defaults; any other path
 * prints what the file sets (objects and lists as JSON). A path the file does not set and the launcher does not
 * know is an error naming the paths that end the same way.
 */
final class PrintSettingCommand {

    static final String OPTION = "--print-setting";
    static final String USAGE = """
            usage: rdma-node-agent --print-setting KEY [--config PATH]
              prints the setting at the HOCON path KEY (e.g. agent.runtime.stateDir) as the agent resolves it:
              includes, substitutions and the launcher's defaults; objects and lists as JSON
            exit status: 0 printed, 1 no such setting, 2 usage, 6 the file is invalid, 4 the file is missing
            or unreadable
            """;
    static final int EXIT_NO_SETTING = ExitCode.FAILURE.code;
    static final int EXIT_USAGE = ExitCode.USAGE.code;

    /** The settings the launcher reads, with its defaults: what the agent uses when the file says nothing. */
    static final Map<String, Function<RuntimeSettings, String>> LAUNCHER = launcherSettings();

    private final PrintStream out;
    private final PrintStream err;

    PrintSettingCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    private static Map<String, Function<RuntimeSettings, String>> launcherSettings() {
        Map<String, Function<RuntimeSettings, String>> m = new LinkedHashMap<>();
        m.put("agent.runtime.stateDir", s -> s.stateDir().toString());
        m.put("agent.runtime.log.level", s -> s.logLevel().name().toLowerCase(Locale.ROOT));
        m.put("agent.runtime.log.format", s -> s.logFormat().name().toLowerCase(Locale.ROOT));
        m.put("agent.runtime.shutdownTimeout", s -> s.shutdownTimeout().toMillis() + "ms");
        return m;
    }

    /** {@code args} is the whole command line (the start script puts {@code --home} first). */
    int run(Path defaultHome, String[] args) {
        Path home = defaultHome;
        Path config = null;
        String key = null;
        if (java.util.Arrays.asList(args).contains("--help") || java.util.Arrays.asList(args).contains("-h")) {
            out.print(USAGE);
            return ExitCode.OK.code;
        }
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if ((arg.equals(OPTION) || arg.equals("--config") || arg.equals("--home")) && i + 1 >= args.length) {
                return usage(arg + " needs a value");
            }
            switch (arg) {
                case OPTION -> {
                    if (key != null) {
                        return usage("one " + OPTION + " at a time");
                    }
                    key = args[++i];
                }
                case "--config" -> config = Path.of(args[++i]);
                case "--home" -> home = Path.of(args[++i]);
                case "--demo" -> {
                    return usage("--demo makes its state directory when it starts; there is nothing to print");
                }
                default -> {
                    return usage("unexpected argument '" + arg + "'");
                }
            }
        }
        Path file = (config != null ? config : home.resolve("config").resolve("agent.conf")).toAbsolutePath()
                .normalize();
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            err.println("rdma-node-agent: config file " + file + (Files.exists(file) ? " is not readable"
                    : " does not exist"));
            return ExitCode.CONFIG_UNREADABLE.code;
        }
        Config resolved;
        RuntimeSettings settings;
        try {
            resolved = RuntimeSettings.resolve(file);
            settings = RuntimeSettings.read(file, resolved);
        } catch (ConfigException | IllegalArgumentException e) {
            err.println("rdma-node-agent: " + e.getMessage());
            return ExitCode.CONFIG_INVALID.code;
        }
        Optional<String> value = value(resolved, settings, key);
        if (value.isEmpty()) {
            err.println("rdma-node-agent: no setting '" + key + "' in " + file + " and none the launcher knows"
                    + suggestions(resolved, key));
            return EXIT_NO_SETTING;
        }
        out.println(value.get());
        return 0;
    }

    static Optional<String> value(Config resolved, RuntimeSettings settings, String key) {
        if (LAUNCHER.containsKey(key)) {
            return Optional.of(LAUNCHER.get(key).apply(settings));
        }
        try {
            if (!resolved.hasPathOrNull(key)) {
                return Optional.empty();
            }
        } catch (ConfigException.BadPath e) {
            return Optional.empty();
        }
        ConfigValue v = resolved.getValue(key);
        return Optional.of(v.valueType() == ConfigValueType.OBJECT || v.valueType() == ConfigValueType.LIST
                ? v.render(ConfigRenderOptions.concise()) : String.valueOf(v.unwrapped()));
    }

    /** The known paths ending in the key's last segment: "stateDir" finds agent.runtime.stateDir and cni.stateDir. */
    private static String suggestions(Config resolved, String key) {
        List<String> parts;
        try {
            parts = ConfigUtil.splitPath(key);
        } catch (ConfigException e) {
            return " (not a HOCON path)";
        }
        String last = parts.get(parts.size() - 1).toLowerCase(Locale.ROOT);
        TreeSet<String> paths = new TreeSet<>(LAUNCHER.keySet());
        resolved.entrySet().forEach(e -> paths.add(e.getKey()));
        List<String> near = new ArrayList<>();
        for (String p : paths) {
            List<String> segments = ConfigUtil.splitPath(p);
            if (segments.get(segments.size() - 1).toLowerCase(Locale.ROOT).equals(last)) {
                near.add(p);
            }
        }
        return near.isEmpty() ? " (give the full HOCON path, e.g. agent.runtime.stateDir)"
                : "; give the full HOCON path: " + String.join(" or ", near);
    }

    private int usage(String problem) {
        err.println("rdma-node-agent " + OPTION + ": " + problem);
        err.print(USAGE);
        return EXIT_USAGE;
    }
}
