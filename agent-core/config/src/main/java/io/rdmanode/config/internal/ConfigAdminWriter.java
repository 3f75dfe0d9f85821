// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.List;
import java.util.Set;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Writes a validated mapping into ConfigAdmin. {@code updateIfDifferent} leaves untouched every configuration
 * whose values did not change, so only those components see a modification. Configurations this file
 * created carry {@code .source} (DS does not pass dotted-prefix keys to components); the ones whose section
 * left the file are deleted, those whose bundle is merely absent are kept.
 */
final class ConfigAdminWriter {

    static final String SOURCE = ".source";
    static final String PATH = ".path";

    /** What an apply did, by displayed PID. */
    record Written(List<String> changed, List<String> deleted) {
    }

    private final ConfigurationAdmin admin;
    private final String source;

    ConfigAdminWriter(ConfigurationAdmin admin, String source) {
        this.admin = admin;
        this.source = source;
    }

    Written write(Mapping mapping) throws IOException {
        List<String> changed = new ArrayList<>();
        for (TargetConfiguration target : mapping.configurations()) {
            Configuration configuration = target.isFactory()
                    ? admin.getFactoryConfiguration(target.pid(), target.name(), "?")
                    : admin.getConfiguration(target.pid(), "?");
            Dictionary<String, Object> properties = new Hashtable<>(target.properties());
            properties.put(SOURCE, source);
            properties.put(PATH, target.path());
            if (configuration.updateIfDifferent(properties)) {
                changed.add(target.displayPid());
            }
        }
        List<String> deleted = new ArrayList<>();
        for (Configuration owned : removedBy(mapping)) {
            deleted.add(owned.getPid());
            owned.delete();
        }
        return new Written(List.copyOf(changed), List.copyOf(deleted));
    }

    /** The PIDs {@link #write} would delete: configurations this file made whose section left it. */
    List<String> removals(Mapping mapping) throws IOException {
        return removedBy(mapping).stream().map(Configuration::getPid).toList();
    }

    private List<Configuration> removedBy(Mapping mapping) throws IOException {
        Set<String> wanted = new HashSet<>();
        for (TargetConfiguration target : mapping.configurations()) {
            wanted.add(target.displayPid());
        }
        List<Configuration> removed = new ArrayList<>();
        for (Configuration owned : owned()) {
            Object path = owned.getProperties() == null ? null : owned.getProperties().get(PATH);
            if (!wanted.contains(owned.getPid()) && !kept(String.valueOf(path), mapping.unclaimed())) {
                removed.add(owned);
            }
        }
        return removed;
    }

    private Configuration[] owned() throws IOException {
        try {
            Configuration[] found = admin.listConfigurations("(" + SOURCE + "=" + escape(source) + ")");
            return found == null ? new Configuration[0] : found;
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException("filter for " + source, e);
        }
    }

    /** A section still in the file whose bundle is not installed right now keeps its configuration. */
    private static boolean kept(String path, List<String> unclaimed) {
        for (String section : unclaimed) {
            if (path.equals(section) || path.startsWith(section + ".") || path.startsWith(section + "[")) {
                return true;
            }
        }
        return false;
    }

    private static String escape(String value) {
        StringBuilder escaped = new StringBuilder();
        for (char c : value.toCharArray()) {
            if (c == '\\' || c == '*' || c == '(' || c == ')') {
                escaped.append('\\');
            }
            escaped.append(c);
        }
        return escaped.toString();
    }
}
