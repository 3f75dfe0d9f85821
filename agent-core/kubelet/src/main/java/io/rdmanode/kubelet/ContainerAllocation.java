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
            if (!rwm(permissions)) {
                throw new IllegalArgumentException("device permissions '" + permissions + "' must be of r, w, m");
            }
        }

        /** {@code [rwm]+} without a regular expression: every Allocate makes a few nodes (String.matches compiles). */
        private static boolean rwm(String permissions) {
            if (permissions.isEmpty()) {
                return false;
            }
            for (int i = 0; i < permissions.length(); i++) {
                char c = permissions.charAt(i);
                if (c != 'r' && c != 'w' && c != 'm') {
                    return false;
                }
            }
            return true;
        }
    }
}
