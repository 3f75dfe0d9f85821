// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import java.nio.file.Path;

/**
 * Host and container paths of device nodes. Discovery reports nodes under its configured dev root (a recorded
 * host's {@code dev/} in the demo and tests, {@code /dev} on a node); a container always sees them under
 * {@code /dev}.
 */
public record DevicePaths(Path devRoot) {

    public String containerPath(Path host) {
        return host.startsWith(devRoot) ? "/dev/" + devRoot.relativize(host) : host.toString();
    }

    /** {@code /dev/vfio/7} to where that node is on the host. */
    public Path hostPath(String container) {
        return container.startsWith("/dev/") ? devRoot.resolve(container.substring(5)) : Path.of(container);
    }
}
