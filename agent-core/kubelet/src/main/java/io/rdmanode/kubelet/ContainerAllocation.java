// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a container gets from {@code Allocate} (kubelet {@code deviceplugin/v1beta1}
 * {@code ContainerAllocateResponse}).
 *
 * @param cdiDevices fully qualified CDI names {@code vendor.com/class=name} for the {@code cdi_devices} field
 * @since 1.0
 */
public record ContainerAllocation(Map<String, String> envs, List<Mount> mounts, List<DeviceNode> devices,
                                  Map<String, String> annotations, List<String> cdiDevices) {

    public ContainerAllocation {
        envs = Map.copyOf(envs);
        mounts = List.copyOf(mounts);
        devices = List.copyOf(devices);
        annotations = Map.copyOf(annotations);
        cdiDevices = List.copyOf(cdiDevices);
    }

    /** A bind mount ({@code Mount}). */
    public record Mount(String containerPath, String hostPath, boolean readOnly) {
    }

    /**
     * A device node ({@code DeviceSpec}).
     *
     * @param permissions any of {@code r}, {@code w}, {@code m} (cgroup device rights)
     */
    public record DeviceNode(String containerPath, String hostPath, String permissions) {
        public DeviceNode {
            Objects.requireNonNull(containerPath, "containerPath");
            Objects.requireNonNull(hostPath, "hostPath");
            if (!permissions.matches("[rwm]+")) {
                throw new IllegalArgumentException("device permissions '" + permissions + "' must be of r, w, m");
            }
        }
    }
}
