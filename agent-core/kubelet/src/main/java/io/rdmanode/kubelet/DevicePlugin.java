// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet;

import java.util.LinkedHashSet;
import java.util.List;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * One extended resource as a device plugin sees it. Methods are called from the host's RPC threads, possibly
 * concurrently, and must not block for long (kubelet waits on Allocate while it admits a pod).
 *
 * @since 1.0
 */
@ConsumerType
public interface DevicePlugin {

    /** Extended resource name {@code <domain>/<name>}, e.g. {@code rdma/hca_a}; constant for the plugin's life. */
    String resourceName();

    /** Sent in the registration and answered to {@code GetDevicePluginOptions}. */
    default PluginOptions options() {
        return new PluginOptions(false, true);
    }

    /** The full device list as it is now; sent on every {@code ListAndWatch} update. Never null. */
    List<Device> devices();

    /**
     * Advisory choice of {@code size} IDs from {@code available}, including every ID of {@code mustInclude}
     * ({@code GetPreferredAllocation}). The default takes the must-include IDs, then available ones in order.
     */
    default List<String> preferredAllocation(List<String> available, List<String> mustInclude, int size) {
        LinkedHashSet<String> chosen = new LinkedHashSet<>(mustInclude);
        for (String id : available) {
            if (chosen.size() >= size) {
                break;
            }
            chosen.add(id);
        }
        return List.copyOf(chosen);
    }

    /**
     * What one container gets for {@code deviceIds} ({@code Allocate}, one call per container request).
     * May be called again with the same IDs (init containers' devices are reused).
     *
     * @throws DevicePluginException with {@code INVALID_ARGUMENT} naming unknown IDs, or {@code UNAVAILABLE}
     */
    ContainerAllocation allocate(List<String> deviceIds);

    /** Called before a container starts when {@link PluginOptions#preStartRequired()}; default does nothing. */
    default void preStartContainer(List<String> deviceIds) {
    }
}
