// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import java.util.Arrays;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;
import org.osgi.framework.startlevel.BundleStartLevel;

/**
 * Readiness waits for the start-up to finish: the health bundle serves {@code /readyz} as soon as it starts,
 * while the launcher is still starting the bundles after it (the metrics bundle among them: a scrape in that
 * window got 404). Not ready while the launcher has not said it started every enabled bundle, or while an
 * agent bundle that is meant to run (persistently started; one disabled in the config file is stopped, which
 * clears that) is not ACTIVE yet. Components of bundles that are ACTIVE are judged by SCR's view as before.
 */
final class StartupCheck implements HealthCheck {

    /** Framework property the launcher sets when it will announce the end of start-up. */
    static final String SIGNAL_PROPERTY = "rdma.agent.startupSignal";
    /** Service property of the launcher's announcement, registered once every enabled bundle was started. */
    static final String COMPLETE_FILTER = "(rdma.agent.startup=complete)";

    private final Supplier<Bundle[]> bundles;
    private final BooleanSupplier launcherDone;

    /** @param launcherDone true once the launcher announced the end of start-up, or when none will */
    StartupCheck(Supplier<Bundle[]> bundles, BooleanSupplier launcherDone) {
        this.bundles = bundles;
        this.launcherDone = launcherDone;
    }

    @Override
    public String name() {
        return "startup";
    }

    @Override
    public Kind kind() {
        return Kind.READY;
    }

    @Override
    public HealthStatus check() {
        if (!launcherDone.getAsBoolean()) {
            return HealthStatus.failing("starting: the launcher is still starting the agent's bundles");
        }
        List<String> notActive = Arrays.stream(bundles.get())
                .filter(b -> b.getHeaders("").get(BundleInfo.AGENT_BUNDLE_HEADER) != null)
                .filter(b -> b.getHeaders("").get(Constants.FRAGMENT_HOST) == null)
                .filter(b -> b.getState() != Bundle.ACTIVE && b.getState() != Bundle.INSTALLED && meantToRun(b))  // INSTALLED: UnresolvedBundlesCheck
                .map(b -> b.getSymbolicName() + " (" + BundleInfo.state(b.getState()) + ")")
                .toList();
        return notActive.isEmpty() ? HealthStatus.ok("every enabled bundle started")
                : HealthStatus.failing("enabled but not active yet: " + String.join(", ", notActive));
    }

    private static boolean meantToRun(Bundle bundle) {
        if (bundle.getState() == Bundle.STARTING) {
            return true;
        }
        BundleStartLevel level = bundle.adapt(BundleStartLevel.class);
        return level != null && level.isPersistentlyStarted();
    }
}
