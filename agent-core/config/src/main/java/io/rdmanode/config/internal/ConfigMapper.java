// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigOrigin;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Maps a parsed HOCON file onto ConfigAdmin configurations and checks every value against the components'
 * MetaType, all of it, before anything is applied.
 *
 * <p>Convention: the object at path {@code P} configures PID {@code io.rdmanode.P}; a list of objects with a
 * {@code name} at {@code P} becomes factory configurations {@code io.rdmanode.P~<name>}. Nested keys inside a
 * configuration flatten with dots ({@code selectors { vendors = [..] }} is property {@code selectors.vendors}).
 * A list of objects inside a configuration flattens with the element's index where the component declares its
 * elements' keys with an {@code N} segment ({@value #ELEMENT}): attribute {@code pools.N.name} takes
 * {@code pools = [ { name = a } ]} as property {@code pools.0.name}, so one PID can hold a list of structured
 * entries (the DRA driver's pools) with every value typed and located like any other.
 * Which object is a PID and which is nesting is decided by the declared PIDs, so {@code agent.http} is PID
 * {@code io.rdmanode.agent.http} while {@code agent} alone is only a namespace.
 *
 * <p>{@code agent.runtime} belongs to the launcher (checked here, applied at the next start) and
 * {@code agent.bundles} to the bundle switches. Anything else under {@code agent} must be known: those
 * bundles ship with the agent. A section elsewhere that no installed bundle declares is a warning, not an
 * error, so a bundle's configuration can be written before its jar is dropped into {@code bundles/}.
 */
final class ConfigMapper {

    static final String PID_PREFIX = "io.rdmanode.";
    static final String RUNTIME_PATH = "agent.runtime";
    static final String BUNDLES_PATH = "agent.bundles";
    /** The config bundle cannot switch itself off: nothing could switch it on again. */
    static final String SELF = "config";

    private static final Pattern FACTORY_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,62}");
    private static final Map<String, AttributeSchema> RUNTIME_KEYS = runtimeKeys();

    private final String file;
    private final ConfigSchema schema;
    private final Set<String> installedBundles;
    /** {@code agent.runtime}, {@code agent.bundles} and every declared PID without the prefix. */
    private final Set<String> knownPaths;

    /** The segment of a declared attribute id that stands for a list element's index ({@code pools.N.name}). */
    static final String ELEMENT = ".N.";

    /** Private property of a factory configuration: its 0-based position in the HOCON list. */
    static final String INDEX = ".index";

    private final List<TargetConfiguration> configurations = new ArrayList<>();
    private final Map<String, Boolean> bundleSwitches = new TreeMap<>();
    private final Map<String, Object> runtime = new TreeMap<>();
    private final List<String> unclaimed = new ArrayList<>();
    private final List<Problem> errors = new ArrayList<>();
    private final List<Problem> warnings = new ArrayList<>();

    /**
     * @param file             the config file, named in every problem
     * @param installedBundles Agent-Bundle names of the installed bundles (for {@code agent.bundles})
     */
    private ConfigMapper(String file, ConfigSchema schema, Set<String> installedBundles) {
        this.file = file;
        this.schema = schema;
        this.installedBundles = installedBundles;
        this.knownPaths = knownPaths(schema);
    }

    static Mapping map(Config config, String file, ConfigSchema schema, Set<String> installedBundles) {
        ConfigMapper mapper = new ConfigMapper(file, schema, installedBundles);
        mapper.walkRoot(config.root());
        return new Mapping(List.copyOf(mapper.configurations), Map.copyOf(mapper.bundleSwitches),
                Map.copyOf(mapper.runtime), List.copyOf(mapper.unclaimed), List.copyOf(mapper.errors),
                List.copyOf(mapper.warnings));
    }

    private void walkRoot(ConfigObject root) {
        for (String key : new TreeSet<>(root.keySet())) {
            if (dottedKey("", key, root.get(key))) {
                continue;
            }
            if (!walk(key, root.get(key))) {
                unclaimed(key, root.get(key));
            }
        }
    }

    /** Returns whether anything at or below {@code path} is configuration the agent understands. */
    private boolean walk(String path, ConfigValue value) {
        if (path.equals(RUNTIME_PATH)) {
            runtime(value);
            return true;
        }
        if (path.equals(BUNDLES_PATH)) {
            bundles(value);
            return true;
        }
        var declared = schema.find(PID_PREFIX + path);
        if (declared.isPresent()) {
            if (declared.get().factory()) {
                factory(path, value, declared.get());
            } else {
                singleton(path, value, declared.get());
            }
            return true;
        }
        if (value.valueType() != ConfigValueType.OBJECT) {
            return false;
        }
        ConfigObject object = (ConfigObject) value;
        boolean claimed = false;
        List<String> rest = new ArrayList<>();
        for (String key : new TreeSet<>(object.keySet())) {
            if (dottedKey(path, key, object.get(key))) {
                claimed = true;
                continue;
            }
            String child = path + "." + key;
            if (walk(child, object.get(key))) {
                claimed = true;
            } else {
                rest.add(child);
            }
        }
        if (claimed || isNamespace(path)) {
            rest.forEach(child -> unclaimed(child, object.get(child.substring(path.length() + 1))));
        }
        return claimed || isNamespace(path);
    }

    /**
     * A quoted key with a dot above the components' sections ({@code "agent.http".threads = 3}) is one key, not a
     * path; walked as a path it stood for the whole section and replaced the real one, dropping its other settings
     * without a word. Refused, naming the unquoted spelling.
     */
    private boolean dottedKey(String parent, String key, ConfigValue value) {
        if (!key.contains(".")) {
            return false;
        }
        String prefix = parent.isEmpty() ? "" : parent + ".";
        error(value.origin(), prefix + "\"" + key + "\"", "a quoted key with dots is one key, not a path: write "
                + prefix + key + " without the quotes");
        return true;
    }

    /** A path above a declared PID ({@code agent}, {@code deviceplugin.shared}): unknown children are named. */
    private boolean isNamespace(String path) {
        return knownPaths.stream().anyMatch(known -> known.startsWith(path + "."));
    }

    private void unclaimed(String path, ConfigValue value) {
        String hint = Suggestions.didYouMean(path, knownPaths);
        if (path.equals("agent") || path.startsWith("agent.")) {
            // The agent's own sections ship with it: an unknown one is a typo, not a bundle yet to come.
            error(value.origin(), path, "unknown key" + hint);
            return;
        }
        unclaimed.add(path);
        warning(value.origin(), path, "no installed bundle declares configuration " + PID_PREFIX + path + hint
                + "; kept, and applied when a bundle that declares it is installed");
    }

    private static Set<String> knownPaths(ConfigSchema schema) {
        Set<String> known = new TreeSet<>(Set.of(RUNTIME_PATH, BUNDLES_PATH));
        for (String pid : schema.pids().keySet()) {
            if (pid.startsWith(PID_PREFIX)) {
                known.add(pid.substring(PID_PREFIX.length()));
            }
        }
        return known;
    }

    private void singleton(String path, ConfigValue value, PidSchema declared) {
        if (value.valueType() != ConfigValueType.OBJECT) {
            error(value.origin(), path, "expected an object { ... } configuring " + declared.pid() + ", found "
                    + ValueConverter.describe(value));
            return;
        }
        properties(path, (ConfigObject) value, declared, false).ifPresent(p -> configurations.add(
                new TargetConfiguration(declared.pid(), null, path, p, origins((ConfigObject) value, declared))));
    }

    private void factory(String path, ConfigValue value, PidSchema declared) {
        if (value.valueType() != ConfigValueType.LIST) {
            error(value.origin(), path, "expected a list of objects [ { name = ..., ... } ], one per "
                    + declared.pid() + " instance, found " + ValueConverter.describe(value));
            return;
        }
        ConfigList list = (ConfigList) value;
        Set<String> names = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            ConfigValue element = list.get(i);
            String elementPath = path + "[" + i + "]";
            if (element.valueType() != ConfigValueType.OBJECT) {
                error(element.origin(), elementPath, "expected an object with a name, found "
                        + ValueConverter.describe(element));
                continue;
            }
            ConfigObject object = (ConfigObject) element;
            ConfigValue nameValue = object.get("name");
            if (nameValue == null || nameValue.valueType() != ConfigValueType.STRING
                    && nameValue.valueType() != ConfigValueType.NUMBER) {
                error(element.origin(), elementPath + ".name", "required: every element needs a name");
                continue;
            }
            String name = String.valueOf(nameValue.unwrapped());
            if (!FACTORY_NAME.matcher(name).matches()) {
                error(nameValue.origin(), elementPath + ".name", "'" + name
                        + "' is not a valid name (letters, digits, '_', '.', '-'; at most 63; starts with a letter"
                        + " or digit)");
                continue;
            }
            if (!names.add(name)) {
                error(nameValue.origin(), elementPath + ".name", "duplicate name '" + name + "'");
                continue;
            }
            String namedPath = path + "[" + name + "]";
            int index = i;
            properties(namedPath, object, declared, true).ifPresent(p -> {
                // The element's position, for factories where order means something (the first matching SR-IOV
                // pool takes a VF). Private (leading dot): components see it, service properties do not.
                p.put(INDEX, index);
                configurations.add(new TargetConfiguration(declared.pid(), name, namedPath, p,
                        origins(object, declared)));
            });
        }
    }

    private java.util.Optional<Map<String, Object>> properties(String path, ConfigObject object,
                                                                PidSchema declared, boolean named) {
        int errorsBefore = errors.size();
        Map<String, String> elementKeys = new java.util.HashMap<>();
        Map<String, ConfigValue> flat = flatten(object, declared, elementKeys);
        Map<String, Object> properties = new LinkedHashMap<>();
        for (var entry : flat.entrySet()) {
            String key = entry.getKey();
            String declaredKey = elementKeys.getOrDefault(key, key);
            if (declaredKey.isEmpty()) {
                error(entry.getValue().origin(), path + "." + key, "expected an object { ... } as list element,"
                        + " found " + ValueConverter.describe(entry.getValue()));
                continue;
            }
            // An element key is only taken inside a list ("pools.N.name" written literally is unknown).
            AttributeSchema attribute = !elementKeys.containsKey(key) && key.contains(ELEMENT) ? null
                    : declared.attributes().get(declaredKey);
            if (attribute == null && named && key.equals("name")) {
                properties.put("name", String.valueOf(entry.getValue().unwrapped()));
                continue;
            }
            if (attribute == null) {
                // An element's key is compared with the keys of that list's elements only.
                String list = declaredKey.contains(ELEMENT) && elementKeys.containsKey(key)
                        ? declaredKey.substring(0, declaredKey.indexOf(ELEMENT) + ELEMENT.length()) : "";
                error(entry.getValue().origin(), path + "." + key, "unknown key" + Suggestions.didYouMean(
                        declaredKey, declared.attributes().keySet().stream().filter(id -> id.startsWith(list))
                                .toList()) + "; " + declared.pid()
                        + " accepts " + new TreeSet<>(declared.attributes().keySet()));
                continue;
            }
            try {
                properties.put(key, ValueConverter.convert(attribute, entry.getValue()));
            } catch (ValueConverter.ConversionException e) {
                error(entry.getValue().origin(), path + "." + key, e.getMessage());
            }
        }
        for (AttributeSchema attribute : declared.attributes().values()) {
            if (attribute.required() && !attribute.id().contains(ELEMENT) && !flat.containsKey(attribute.id())) {
                error(object.origin(), path + "." + attribute.id(), "required key is missing (" + declared.pid()
                        + " has no default for it)");
            }
        }
        return errors.size() == errorsBefore ? java.util.Optional.of(properties) : java.util.Optional.empty();
    }

    /**
     * {@link #flatten(String, ConfigObject, Map)}, then each list whose elements {@code declared} describes
     * ({@code key.N.*} attributes) expanded by index: element {@code i}'s {@code sub} becomes {@code key.i.sub}.
     * {@code elementKeys} receives each expanded key's declared attribute ({@code key.N.sub}), or "" for an
     * element that is no object (or an empty one).
     */
    private static Map<String, ConfigValue> flatten(ConfigObject object, PidSchema declared,
                                                    Map<String, String> elementKeys) {
        Map<String, ConfigValue> flat = new TreeMap<>();
        flatten("", object, flat);
        Map<String, ConfigValue> out = new LinkedHashMap<>();
        flat.forEach((key, value) -> {
            if (value.valueType() != ConfigValueType.LIST || declared.attributes().keySet().stream()
                    .noneMatch(id -> id.startsWith(key + ELEMENT))) {
                out.put(key, value);
                return;
            }
            ConfigList list = (ConfigList) value;
            for (int i = 0; i < list.size(); i++) {
                String prefix = key + "." + i;
                ConfigValue element = list.get(i);
                Map<String, ConfigValue> sub = new TreeMap<>();
                if (element.valueType() == ConfigValueType.OBJECT) {
                    flatten("", (ConfigObject) element, sub);
                }
                if (sub.isEmpty()) {
                    out.put(prefix, element);
                    elementKeys.put(prefix, "");
                }
                sub.forEach((k, v) -> {
                    out.put(prefix + "." + k, v);
                    elementKeys.put(prefix + "." + k, key + ELEMENT + k);
                });
            }
        });
        return out;
    }

    /** Where each (flattened) property of {@code object} was written, and the object itself under {@code ""}. */
    private Map<String, TargetConfiguration.Origin> origins(ConfigObject object, PidSchema declared) {
        Map<String, ConfigValue> flat = flatten(object, declared, new java.util.HashMap<>());
        Map<String, TargetConfiguration.Origin> origins = new java.util.HashMap<>();
        origins.put("", origin(object.origin()));
        flat.forEach((key, value) -> origins.put(key, origin(value.origin())));
        return Map.copyOf(origins);
    }

    private TargetConfiguration.Origin origin(ConfigOrigin origin) {
        String source = origin != null && origin.filename() != null ? origin.filename() : file;
        return new TargetConfiguration.Origin(source, origin != null ? origin.lineNumber() : -1);
    }

    /** Nested objects become dotted keys; lists and scalars are leaves. */
    private static void flatten(String prefix, ConfigObject object, Map<String, ConfigValue> into) {
        for (var entry : object.entrySet()) {
            String key = prefix.isEmpty() ? entry.getKey() : prefix + "." + entry.getKey();
            if (entry.getValue().valueType() == ConfigValueType.OBJECT) {
                flatten(key, (ConfigObject) entry.getValue(), into);
            } else {
                into.put(key, entry.getValue());
            }
        }
    }

    private void runtime(ConfigValue value) {
        if (value.valueType() != ConfigValueType.OBJECT) {
            error(value.origin(), RUNTIME_PATH, "expected an object, found " + ValueConverter.describe(value));
            return;
        }
        Map<String, ConfigValue> flat = new TreeMap<>();
        flatten("", (ConfigObject) value, flat);
        for (var entry : flat.entrySet()) {
            String key = RUNTIME_PATH + "." + entry.getKey();
            AttributeSchema attribute = RUNTIME_KEYS.get(entry.getKey());
            if (attribute == null) {
                error(entry.getValue().origin(), key, "unknown key"
                        + Suggestions.didYouMean(entry.getKey(), RUNTIME_KEYS.keySet()) + "; agent.runtime accepts "
                        + new TreeSet<>(RUNTIME_KEYS.keySet()));
                continue;
            }
            try {
                runtime.put(entry.getKey(), ValueConverter.convert(attribute, entry.getValue()));
            } catch (ValueConverter.ConversionException e) {
                error(entry.getValue().origin(), key, e.getMessage());
            }
        }
    }

    private void bundles(ConfigValue value) {
        if (value.valueType() != ConfigValueType.OBJECT) {
            error(value.origin(), BUNDLES_PATH, "expected an object { <bundle> { enabled = true|false } }, found "
                    + ValueConverter.describe(value));
            return;
        }
        ConfigObject object = (ConfigObject) value;
        for (String name : new TreeSet<>(object.keySet())) {
            String path = BUNDLES_PATH + "." + name;
            ConfigValue entry = object.get(name);
            if (entry.valueType() != ConfigValueType.OBJECT) {
                error(entry.origin(), path, "expected { enabled = true|false }, found "
                        + ValueConverter.describe(entry));
                continue;
            }
            ConfigObject settings = (ConfigObject) entry;
            for (String key : settings.keySet()) {
                if (!key.equals("enabled")) {
                    error(settings.get(key).origin(), path + "." + key, "unknown key; a bundle entry accepts [enabled]");
                }
            }
            ConfigValue enabled = settings.get("enabled");
            if (enabled == null) {
                continue;
            }
            boolean on;
            try {
                on = (Boolean) ValueConverter.convert(AttributeSchema.of("enabled", AttributeType.BOOLEAN), enabled);
            } catch (ValueConverter.ConversionException e) {
                error(enabled.origin(), path + ".enabled", e.getMessage());
                continue;
            }
            if (!on && name.equals(SELF)) {
                error(enabled.origin(), path + ".enabled", "the config bundle cannot be disabled: it applies this"
                        + " file, so nothing could enable it again");
                continue;
            }
            if (!installedBundles.contains(name)) {
                warning(enabled.origin(), path, "no installed bundle is named '" + name + "'"
                        + Suggestions.didYouMean(name, installedBundles) + "; installed: " + new TreeSet<>(
                        installedBundles) + "; the switch applies when it is installed");
            }
            bundleSwitches.put(name, on);
        }
    }

    private static Map<String, AttributeSchema> runtimeKeys() {
        Map<String, AttributeSchema> keys = new TreeMap<>();
        keys.put("stateDir", AttributeSchema.of("stateDir", AttributeType.STRING));
        keys.put("log.level", new AttributeSchema("log.level", AttributeType.STRING, 0, false,
                List.of("error", "warn", "info", "debug", "trace"), v -> null));
        keys.put("log.format", new AttributeSchema("log.format", AttributeType.STRING, 0, false,
                List.of("text", "json"), v -> null));
        keys.put("shutdownTimeout", new AttributeSchema("shutdownTimeout", AttributeType.LONG, 0, false, List.of(),
                v -> Long.parseLong(v) >= 1 ? null : "must be at least 1ms"));
        return keys;
    }

    private void error(ConfigOrigin origin, String key, String message) {
        errors.add(problem(origin, key, message));
    }

    private void warning(ConfigOrigin origin, String key, String message) {
        warnings.add(problem(origin, key, message));
    }

    private Problem problem(ConfigOrigin origin, String key, String message) {
        String source = origin != null && origin.filename() != null ? origin.filename() : file;
        int line = origin != null ? origin.lineNumber() : -1;
        return new Problem(source, line, key, message);
    }
}
