// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import io.rdmanode.health.HealthCheck;
import io.rdmanode.health.HealthStatus;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;

/**
 * Readiness fails while any bundle stays INSTALLED: it could not be resolved (a missing import), so nothing
 * in it runs and no component of it would even show up as failing. A bundle stopped on purpose
 * ({@code agent.bundles.<name>.enabled = false}) is RESOLVED, not INSTALLED, and does not count.
 */
final class UnresolvedBundlesCheck implements HealthCheck {

    private final Supplier<Bundle[]> bundles;

    UnresolvedBundlesCheck(Supplier<Bundle[]> bundles) {
        this.bundles = bundles;
    }

    @Override
    public String name() {
        return "bundles";
    }

    @Override
    public Kind kind() {
        return Kind.READY;
    }

    @Override
    public HealthStatus check() {
        List<String> unresolved = Arrays.stream(bundles.get())
                .filter(b -> b.getState() == Bundle.INSTALLED)
                .filter(b -> b.getHeaders("").get(Constants.FRAGMENT_HOST) == null)
                .map(b -> b.getSymbolicName() + "/" + b.getVersion())
                .toList();
        return unresolved.isEmpty() ? HealthStatus.ok("every bundle resolved")
                : HealthStatus.failing("not resolved (missing imports, see the log): " + String.join(", ", unresolved));
    }
}
