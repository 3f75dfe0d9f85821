// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.health.internal;

import org.osgi.framework.Bundle;

/**
 * One installed bundle as {@code /status} lists it. {@code agentBundle} is the value of the manifest header
 * {@value #AGENT_BUNDLE_HEADER}, or null for third-party bundles (SCR, ConfigAdmin, libraries).
 */
record BundleInfo(long id, String symbolicName, String agentBundle, String version, String state) {

    static final String AGENT_BUNDLE_HEADER = io.rdmanode.agent.AgentProperties.AGENT_BUNDLE_HEADER;

    static BundleInfo of(Bundle bundle) {
        // getHeaders("") gives the raw, unlocalized values and never reads a localization file.
        String agentBundle = bundle.getHeaders("").get(AGENT_BUNDLE_HEADER);
        return new BundleInfo(bundle.getBundleId(), String.valueOf(bundle.getSymbolicName()), agentBundle,
                bundle.getVersion().toString(), state(bundle.getState()));
    }

    static String state(int state) {
        return switch (state) {
            case Bundle.ACTIVE -> "ACTIVE";
            case Bundle.RESOLVED -> "RESOLVED";
            case Bundle.INSTALLED -> "INSTALLED";
            case Bundle.STARTING -> "STARTING";
            case Bundle.STOPPING -> "STOPPING";
            case Bundle.UNINSTALLED -> "UNINSTALLED";
            default -> "UNKNOWN(" + state + ")";
        };
    }
}
