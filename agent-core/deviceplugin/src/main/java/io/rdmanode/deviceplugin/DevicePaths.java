// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where device nodes are for kubelet and the container runtime: the container path is always
 * {@code /dev/<relative>} and the host path is {@code <hostDevRoot>/<relative>}, the node's own path, whatever
 * directory the agent reads devices from (discovery's {@code devRoot}, which in a DaemonSet or the demo is
 * somewhere else). Set by {@code deviceplugin.common.hostDevRoot}.
 *
 * @param hostDevRoot absolute, the node's {@code /dev} by default
 * @since 1.0
 */
public record DevicePaths(Path hostDevRoot) {

    public static final DevicePaths DEFAULT = new DevicePaths(Path.of("/dev"));

    public DevicePaths {
        if (!hostDevRoot.isAbsolute()) {
            throw new IllegalArgumentException("hostDevRoot '" + hostDevRoot + "' must be an absolute path");
        }
        hostDevRoot = hostDevRoot.normalize();
    }

    /** The node for one present file. */
    public DeviceNode node(DeviceFile file, String permissions) {
        return new DeviceNode("/dev/" + file.relativePath(), hostDevRoot.resolve(file.relativePath()).toString(),
                permissions);
    }

    /** Nodes of the present files, de-duplicated by container path, in order. */
    public List<DeviceNode> nodes(List<DeviceFile> files, String permissions) {
        Map<String, DeviceNode> byPath = new LinkedHashMap<>();
        for (DeviceFile f : files) {
            if (f.present()) {
                byPath.putIfAbsent("/dev/" + f.relativePath(), node(f, permissions));
            }
        }
        return List.copyOf(byPath.values());
    }
}
