// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whiteboard services keyed by a name (a {@code /status} member, an HTTP path), first come first served. A
 * name reserved by the health bundle itself is refused; a name already taken is refused too, but the newcomer
 * waits and takes over when the holder goes, so the outcome does not depend on the order bundles restart in.
 */
final class NamedWhiteboard<T> {

    private static final Logger LOG = LoggerFactory.getLogger(NamedWhiteboard.class);

    record Entry<T>(String name, T service, String owner) {
    }

    /** What removing a service changed: whether it was serving, and who serves its name now. */
    record Removal<T>(Entry<T> removed, boolean wasActive, Optional<Entry<T>> successor) {
    }

    private final String kind;
    private final Set<String> reserved;
    private final List<Entry<T>> entries = new ArrayList<>(); // arrival order: the first per name is active

    NamedWhiteboard(String kind, Set<String> reserved) {
        this.kind = kind;
        this.reserved = Set.copyOf(reserved);
    }

    /** Adds a service; true when it serves its name now, false when refused or waiting (with a WARN). */
    synchronized boolean add(String name, T service, String owner) {
        if (reserved.contains(name)) {
            LOG.warn("refused {} name={} owner={}: clashes with the built-in {} of the health bundle", kind, name,
                    owner, name);
            return false;
        }
        Optional<Entry<T>> holder = active(name);
        entries.add(new Entry<>(name, service, owner));
        if (holder.isPresent()) {
            LOG.warn("refused {} name={} owner={}: already served by {}; it takes over if that one goes", kind,
                    name, owner, holder.get().owner());
            return false;
        }
        return true;
    }

    /** Removes a service by identity; empty if it was never added (refused as reserved, or removed already). */
    synchronized Optional<Removal<T>> remove(T service) {
        for (Entry<T> entry : entries) {
            if (entry.service() == service) {
                boolean wasActive = active(entry.name()).orElseThrow() == entry;
                entries.remove(entry);
                Optional<Entry<T>> successor = wasActive ? active(entry.name()) : Optional.empty();
                successor.ifPresent(s -> LOG.info("{} name={} now served by {} after {} left", kind, s.name(),
                        s.owner(), entry.owner()));
                return Optional.of(new Removal<>(entry, wasActive, successor));
            }
        }
        return Optional.empty();
    }

    /** The name {@code service} was added under, if it was added (and not refused as reserved). */
    synchronized Optional<String> nameOf(T service) {
        return entries.stream().filter(e -> e.service() == service).map(Entry::name).findFirst();
    }

    /** The serving entry per name, in arrival order. */
    synchronized List<Entry<T>> active() {
        Map<String, Entry<T>> first = new LinkedHashMap<>();
        entries.forEach(e -> first.putIfAbsent(e.name(), e));
        return List.copyOf(first.values());
    }

    private Optional<Entry<T>> active(String name) {
        return entries.stream().filter(e -> e.name().equals(name)).findFirst();
    }
}
