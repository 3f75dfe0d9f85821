// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import java.util.Optional;
import java.util.regex.Pattern;

/** Extended resource names (kubelet {@code deviceplugin/v1beta1}, protocol-facts §1.1) and socket file names. */
public final class ResourceNames {

    // DNS-1123 subdomain domain part, qualified-name name part (<= 63 chars, alphanumeric at both ends).
    private static final Pattern DOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

    private ResourceNames() {
    }

    /** Why {@code resourceName} is not an extended resource name kubelet accepts; empty when it is one. */
    public static Optional<String> problem(String resourceName) {
        int slash = resourceName.indexOf('/');
        if (slash < 0 || slash != resourceName.lastIndexOf('/')) {
            return Optional.of("resource name '" + resourceName + "' must be <domain>/<name>");
        }
        String domain = resourceName.substring(0, slash);
        String name = resourceName.substring(slash + 1);
        if (domain.length() > 253 || !DOMAIN.matcher(domain).matches()) {
            return Optional.of("resource name '" + resourceName + "': domain '" + domain + "' is not a DNS subdomain");
        }
        if (domain.equals("kubernetes.io") || domain.endsWith(".kubernetes.io")) {
            return Optional.of("resource name '" + resourceName + "': the kubernetes.io domain is reserved");
        }
        if (name.length() > 63 || !NAME.matcher(name).matches()) {
            return Optional.of("resource name '" + resourceName + "': name '" + name
                    + "' must be 1-63 characters of [A-Za-z0-9._-], alphanumeric at both ends");
        }
        return Optional.empty();
    }

    /** The plugin's socket file name in the device-plugins directory, e.g. {@code rdma-node-agent.rdma_hca_a.sock}. */
    public static String socketFileName(String resourceName) {
        return "rdma-node-agent." + resourceName.replace('/', '_') + ".sock";
    }
}
