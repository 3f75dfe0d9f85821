// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The extended resource names kubelet accepts from a device plugin ({@code deviceplugin/v1beta1}):
 * {@code <domain>/<name>}, the domain a lower-case DNS subdomain outside {@code kubernetes.io}, the name 1-63
 * characters of {@code [A-Za-z0-9._-]} alphanumeric at both ends. The host refuses any other name at
 * {@link DevicePluginHost#serve}; plugin bundles' configuration validators call the same check.
 *
 * @since 1.2
 */
public final class ExtendedResourceNames {

    // DNS-1123 subdomain domain part, qualified-name name part (<= 63 chars, alphanumeric at both ends).
    private static final Pattern DOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

    private ExtendedResourceNames() {
    }

    /** Why {@code resourceName} is not an extended resource name kubelet accepts; empty when it is one. */
    public static Optional<String> problem(String resourceName) {
        int slash = resourceName.indexOf('/');
        if (slash < 0 || slash != resourceName.lastIndexOf('/')) {
            return Optional.of("resource name '" + resourceName + "' must be <domain>/<name>, e.g. rdma/hca_a");
        }
        String domain = resourceName.substring(0, slash);
        String name = resourceName.substring(slash + 1);
        if (domain.length() > 253 || !DOMAIN.matcher(domain).matches()) {
            return Optional.of("resource name '" + resourceName + "': domain '" + domain + "' is not a DNS"
                    + " subdomain (lower-case letters, digits, '-' and '.', at most 253 characters, e.g. rdma or"
                    + " example.com)");
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
}
