// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.wiring.FrameworkWiring;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the framework's bundles equal to the jars in one directory: a new jar is installed and started, a
 * changed jar is updated, a removed jar is uninstalled, and the framework is refreshed so dependents re-wire.
 * Jars are read into the framework's cache (never {@code reference:} URLs), so a jar may be replaced or
 * deleted on disk at any time. Bundles named in {@code disabled} (by their {@code Agent-Bundle} header) are
 * installed but not started; the config bundle owns their state afterwards.
 */
final class BundleDirectory {

    static final String AGENT_BUNDLE_HEADER = io.rdmanode.agent.AgentProperties.AGENT_BUNDLE_HEADER;
    private static final Logger LOG = LoggerFactory.getLogger(BundleDirectory.class);

    private final Path dir;
    private final BundleContext system;
    private final Set<String> disabled;
    private final Map<Path, Fingerprint> known = new HashMap<>();

    private record Fingerprint(long size, long modified, Object fileKey) {
        static Fingerprint of(Path jar) throws IOException {
            BasicFileAttributes attributes = Files.readAttributes(jar, BasicFileAttributes.class);
            return new Fingerprint(attributes.size(), attributes.lastModifiedTime().toMillis(), attributes.fileKey());
        }
    }

    /** What one {@link #sync()} did, for logs and tests. */
    record Changes(List<String> installed, List<String> updated, List<String> uninstalled, List<String> failed) {
        boolean any() {
            return !installed.isEmpty() || !updated.isEmpty() || !uninstalled.isEmpty() || !failed.isEmpty();
        }
    }

    BundleDirectory(Path dir, BundleContext system, Set<String> disabled) {
        this.dir = dir;
        this.system = system;
        this.disabled = disabled;
    }

    Path dir() {
        return dir;
    }

    /** Brings the framework in line with the directory. Called from one thread at a time. */
    synchronized Changes sync() throws IOException {
        Map<Path, Fingerprint> present = scan();
        Changes changes = new Changes(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        List<Bundle> toRefresh = new ArrayList<>();
        List<Bundle> toStart = new ArrayList<>();
        for (Map.Entry<Path, Fingerprint> jar : present.entrySet()) {
            Fingerprint before = known.get(jar.getKey());
            if (before == null) {
                install(jar.getKey(), changes, toStart);
            } else if (!before.equals(jar.getValue())) {
                update(jar.getKey(), changes, toRefresh);
            }
            known.put(jar.getKey(), jar.getValue());
        }
        for (Path gone : List.copyOf(known.keySet())) {
            if (!present.containsKey(gone)) {
                known.remove(gone);
                uninstall(gone, changes, toRefresh);
            }
        }
        if (!toRefresh.isEmpty()) {
            refresh(toRefresh);
        }
        start(toStart, changes);
        return changes;
    }

    private Map<Path, Fingerprint> scan() throws IOException {
        Map<Path, Fingerprint> jars = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = file.getFileName().toString();
                // Editors and copy tools write temporaries first; only finished *.jar files count.
                if (name.endsWith(".jar") && !name.startsWith(".") && Files.isRegularFile(file)) {
                    try {
                        jars.put(file, Fingerprint.of(file));
                    } catch (IOException vanished) {
                        LOG.debug("bundle jar vanished while scanning file={}", file);
                    }
                }
            }
        }
        return jars;
    }

    private static String location(Path jar) {
        return jar.toUri().toString();
    }

    private void install(Path jar, Changes changes, List<Bundle> toStart) {
        try (InputStream in = Files.newInputStream(jar)) {
            Bundle bundle = system.installBundle(location(jar), in);
            changes.installed().add(describe(bundle));
            if (bundle.getHeaders().get(Constants.FRAGMENT_HOST) != null) {
                return; // fragments attach to their host; they cannot be started
            }
            String agentName = bundle.getHeaders().get(AGENT_BUNDLE_HEADER);
            if (agentName != null && disabled.contains(agentName)) {
                LOG.info("bundle installed but disabled by agent.bundles.{}.enabled bundle={}", agentName,
                        describe(bundle));
                return;
            }
            toStart.add(bundle);
        } catch (IOException | BundleException | RuntimeException e) {
            changes.failed().add(jar.getFileName() + ": " + e.getMessage());
            LOG.error("cannot install bundle file={}: {}", jar, e.getMessage());
        }
    }

    private void update(Path jar, Changes changes, List<Bundle> toRefresh) {
        Bundle bundle = system.getBundle(location(jar));
        if (bundle == null) {
            install(jar, changes, new ArrayList<>());
            return;
        }
        try (InputStream in = Files.newInputStream(jar)) {
            bundle.update(in);
            toRefresh.add(bundle);
            changes.updated().add(describe(bundle));
        } catch (IOException | BundleException | RuntimeException e) {
            changes.failed().add(jar.getFileName() + ": " + e.getMessage());
            LOG.error("cannot update bundle file={}: {}", jar, e.getMessage());
        }
    }

    private void uninstall(Path jar, Changes changes, List<Bundle> toRefresh) {
        Bundle bundle = system.getBundle(location(jar));
        if (bundle == null) {
            return;
        }
        try {
            String name = describe(bundle);
            bundle.uninstall();
            toRefresh.add(bundle);
            changes.uninstalled().add(name);
        } catch (BundleException | RuntimeException e) {
            changes.failed().add(jar.getFileName() + ": " + e.getMessage());
            LOG.error("cannot uninstall bundle file={}: {}", jar, e.getMessage());
        }
    }

    /** Re-wires dependents of updated or removed bundles; waits so the next sync sees a settled framework. */
    private void refresh(List<Bundle> bundles) {
        CountDownLatch done = new CountDownLatch(1);
        system.getBundle(Constants.SYSTEM_BUNDLE_LOCATION).adapt(FrameworkWiring.class)
                .refreshBundles(bundles, event -> {
                    if (event.getType() == FrameworkEvent.PACKAGES_REFRESHED) {
                        done.countDown();
                    }
                });
        try {
            if (!done.await(30, TimeUnit.SECONDS)) {
                LOG.warn("bundle refresh did not finish within 30 s bundles={}", bundles);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void start(List<Bundle> bundles, Changes changes) {
        for (Bundle bundle : bundles) {
            try {
                bundle.start();
            } catch (BundleException | RuntimeException e) {
                changes.failed().add(describe(bundle) + ": " + e.getMessage());
                LOG.error("cannot start bundle={}: {}", describe(bundle), e.getMessage());
            }
        }
    }

    static String describe(Bundle bundle) {
        return bundle.getSymbolicName() + "/" + bundle.getVersion();
    }
}
