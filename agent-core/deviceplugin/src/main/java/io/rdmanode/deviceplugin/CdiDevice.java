// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import io.rdmanode.kubelet.ContainerAllocation.DeviceNode;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One device of a CDI spec: its name (the part after {@code =} in {@code vendor.com/class=name}) and its
 * container edits.
 *
 * @since 1.0
 */
public record CdiDevice(String name, List<DeviceNode> deviceNodes, Map<String, String> env) {

    /** CDI device names: letters, digits, {@code _ - . :}, starting and ending alphanumeric. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.:]*[A-Za-z0-9])?");

    public CdiDevice {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("CDI device name '" + name + "' must be letters, digits, '_', '-', "
                    + "'.', ':', alphanumeric at both ends");
        }
        deviceNodes = List.copyOf(deviceNodes);
        env = Map.copyOf(env);
    }
}
