// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.osgi.framework.Bundle;
import org.osgi.framework.namespace.PackageNamespace;
import org.osgi.framework.wiring.BundleCapability;
import org.osgi.framework.wiring.BundleRevision;

/**
 * The API packages exported by agent bundles that are installed but not running, by package, with the bundle's
 * {@code Agent-Bundle} name. The launcher starts every bundle unless the configuration disables it (a start that
 * fails is {@code startup}'s to report), so a bundle not running is one the operator turned off, and a component
 * that needs only its services waits for nothing that will come: with {@code cni { }} in the file and
 * {@code agent.bundles.cni.enabled = false}, the SR-IOV plugin's CNI placements and the metrics bundle's pod
 * ports would otherwise hold {@code /readyz} at 503 forever.
 */
final class StoppedProviders {

    static final StoppedProviders NONE = new StoppedProviders(Map.of());

    private final Map<String, String> bundleByPackage;

    StoppedProviders(Map<String, String> bundleByPackage) {
        this.bundleByPackage = Map.copyOf(bundleByPackage);
    }

    static StoppedProviders of(List<Bundle> agentBundles) {
        Map<String, String> byPackage = new TreeMap<>();
        for (Bundle bundle : agentBundles) {
            if (bundle.getState() == Bundle.ACTIVE || bundle.getState() == Bundle.STARTING) {
                continue;
            }
            BundleRevision revision = bundle.adapt(BundleRevision.class);
            if (revision == null) {
                continue;
            }
            String name = String.valueOf(bundle.getHeaders("").get(BundleInfo.AGENT_BUNDLE_HEADER));
            for (BundleCapability capability : revision.getDeclaredCapabilities(PackageNamespace.PACKAGE_NAMESPACE)) {
                Object pkg = capability.getAttributes().get(PackageNamespace.PACKAGE_NAMESPACE);
                if (pkg instanceof String p) {
                    byPackage.put(p, name);
                }
            }
        }
        return new StoppedProviders(byPackage);
    }

    /** The stopped bundle providing every one of {@code interfaces}, if one stopped bundle provides them all. */
    Optional<String> allStopped(List<String> interfaces) {
        if (interfaces.isEmpty()) {
            return Optional.empty();
        }
        String provider = null;
        for (String type : interfaces) {
            int dot = type.lastIndexOf('.');
            String bundle = dot < 0 ? null : bundleByPackage.get(type.substring(0, dot));
            if (bundle == null || (provider != null && !provider.equals(bundle))) {
                return Optional.empty();
            }
            provider = bundle;
        }
        return Optional.ofNullable(provider);
    }
}
