// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.config.internal;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code agent.bundles.<name>.enabled}: stops and starts bundles by their {@code Agent-Bundle} header. Only a
 * switch that changed is acted on, so a bundle the launcher is busy updating (hot swap) is left alone; a
 * disabled bundle that gets started anyway (a replaced jar) is stopped again by {@link #enforce}.
 */
final class BundleSwitches {

    static final String AGENT_BUNDLE_HEADER = io.rdmanode.agent.AgentProperties.AGENT_BUNDLE_HEADER;
    private static final Logger LOG = LoggerFactory.getLogger(BundleSwitches.class);

    private final BundleContext context;
    /** Effective switches; a name absent means enabled. */
    private Map<String, Boolean> current = Map.of();
    private boolean first = true;

    BundleSwitches(BundleContext context) {
        this.context = context;
    }

    static String agentName(Bundle bundle) {
        return bundle.getHeaders("").get(AGENT_BUNDLE_HEADER);
    }

    Set<String> installedNames() {
        Set<String> names = new TreeSet<>();
        for (Bundle bundle : context.getBundles()) {
            String name = agentName(bundle);
            if (name != null) {
                names.add(name);
            }
        }
        return names;
    }

    /** Applies new switches; returns problems starting or stopping bundles (the file itself was valid). */
    List<String> apply(Map<String, Boolean> switches) {
        Map<String, Boolean> previous = current;
        current = Map.copyOf(switches);
        boolean initial = first;
        first = false;
        List<String> failures = new java.util.ArrayList<>();
        for (Bundle bundle : context.getBundles()) {
            String name = agentName(bundle);
            if (name == null || bundle.getHeaders("").get(Constants.FRAGMENT_HOST) != null) {
                continue;
            }
            boolean enabled = switches.getOrDefault(name, true);
            boolean wasEnabled = previous.getOrDefault(name, true);
            if (!enabled && (initial || wasEnabled)) {
                stop(bundle, name, failures);
            } else if (enabled && !wasEnabled && !initial) {
                start(bundle, name, failures);
            }
        }
        return failures;
    }

    /** Keeps a disabled bundle stopped when something else (a hot swap) started it. */
    void enforce(Bundle bundle) {
        String name = agentName(bundle);
        if (name != null && !current.getOrDefault(name, true)) {
            stop(bundle, name, new java.util.ArrayList<>());
        }
    }

    boolean enabled(String name) {
        return current.getOrDefault(name, true);
    }

    Map<String, Object> describe() {
        Map<String, Object> states = new HashMap<>();
        for (Bundle bundle : context.getBundles()) {
            String name = agentName(bundle);
            if (name != null) {
                states.put(name, enabled(name) ? "enabled" : "disabled");
            }
        }
        return states;
    }

    private static void stop(Bundle bundle, String name, List<String> failures) {
        if (bundle.getState() != Bundle.ACTIVE && bundle.getState() != Bundle.STARTING) {
            return;
        }
        try {
            bundle.stop();
            LOG.info("bundle stopped by agent.bundles.{}.enabled=false bundle={}", name, bundle.getSymbolicName());
        } catch (BundleException | RuntimeException e) {
            failures.add("cannot stop bundle " + name + ": " + e.getMessage());
            LOG.warn("cannot stop bundle={}: {}", name, e.getMessage());
        }
    }

    private static void start(Bundle bundle, String name, List<String> failures) {
        if (bundle.getState() == Bundle.ACTIVE || bundle.getState() == Bundle.STARTING) {
            return;
        }
        try {
            bundle.start();
            LOG.info("bundle started by agent.bundles.{}.enabled=true bundle={}", name, bundle.getSymbolicName());
        } catch (BundleException | RuntimeException e) {
            failures.add("cannot start bundle " + name + ": " + e.getMessage());
            LOG.warn("cannot start bundle={}: {}", name, e.getMessage());
        }
    }
}
