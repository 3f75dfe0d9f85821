// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import java.nio.file.Path;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where the driver's files are, from its configuration: the two sockets kubelet finds (the registration socket
 * in kubelet's plugin-watcher directory, the DRA service socket under kubelet's plugins directory), the CDI spec
 * directory the container runtime reads, and the agent's state directory for the prepared-claims checkpoint.
 *
 * @param driverName a DNS subdomain, e.g. {@code rdma.rdmanode.io}: the ResourceSlices' and claims' driver
 * @param hostDevRoot the node's {@code /dev} as the container runtime sees it (CDI host paths)
 */
public record DraSettings(String driverName, Path pluginsDir, Path registryDir, Path cdiDir, Path stateDir,
                          Path hostDevRoot) {

    public static final String DEFAULT_DRIVER = "rdma.rdmanode.io";

    /** RFC 1123 subdomain, as kubelet and the API server check driver names. */
    private static final Pattern DNS_SUBDOMAIN =
            Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

    public DraSettings {
        Objects.requireNonNull(driverName, "driverName");
        if (driverName.length() > 63 || !DNS_SUBDOMAIN.matcher(driverName).matches()) {
            throw new IllegalArgumentException("driver name '" + driverName + "' must be a DNS subdomain of at most"
                    + " 63 characters (lower-case letters, digits, '-', '.')");
        }
        Objects.requireNonNull(pluginsDir, "pluginsDir");
        Objects.requireNonNull(registryDir, "registryDir");
        Objects.requireNonNull(cdiDir, "cdiDir");
        Objects.requireNonNull(stateDir, "stateDir");
        Objects.requireNonNull(hostDevRoot, "hostDevRoot");
    }

    /** {@code <pluginsDir>/<driver>/dra.sock}: the endpoint GetInfo names. */
    public Path draSocket() {
        return pluginsDir.resolve(driverName).resolve("dra.sock");
    }

    /** {@code <registryDir>/<driver>-reg.sock}: what kubelet's plugin watcher finds. */
    public Path registrationSocket() {
        return registryDir.resolve(driverName + "-reg.sock");
    }

    /** {@code <stateDir>/dra-prepared.json}. */
    public Path checkpoint() {
        return stateDir.resolve("dra-prepared.json");
    }
}
