// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.PluginOptions;
import java.util.LinkedHashSet;
import java.util.List;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A device plugin's pool, as the layer serves it ({@link DevicePluginLayer#serve}): a pure function from a host
 * snapshot to a {@link PoolView}, and Allocate against the current view. The layer recomputes the view on every
 * topology change, pushes ListAndWatch only when the device list changed, counts allocations and shows the
 * pool in {@code /status}.
 *
 * @since 1.0
 */
@ConsumerType
public interface ResourcePool {

    /** The pool's name (configuration name), for logs and {@code /status}. */
    String name();

    /** Extended resource name {@code <domain>/<name>}; constant. */
    String resourceName();

    /** What the pool is on {@code host}. Called on the discovery thread; must not block. */
    PoolView compute(HostSnapshot host);

    /**
     * One container's devices for {@code deviceIds} on {@code view} (the current one).
     *
     * @throws io.rdmanode.kubelet.DevicePluginException INVALID_ARGUMENT for unknown IDs, UNAVAILABLE otherwise
     */
    ContainerAllocation allocate(PoolView view, List<String> deviceIds);

    /**
     * Whether a device of this pool goes to one pod at a time (an SR-IOV VF) rather than to every pod of the pool
     * (a shared HCA): the pool's kind in the ownership table ({@link Ownership}).
     *
     * @since 2.0
     */
    default boolean exclusive() {
        return false;
    }

    default PluginOptions options() {
        return new PluginOptions(false, true);
    }

    /** As {@link io.rdmanode.kubelet.DevicePlugin#preferredAllocation}; default: must-include, then in order. */
    default List<String> preferredAllocation(PoolView view, List<String> available, List<String> mustInclude,
                                             int size) {
        LinkedHashSet<String> chosen = new LinkedHashSet<>(mustInclude);
        for (String id : available) {
            if (chosen.size() >= size) {
                break;
            }
            chosen.add(id);
        }
        return List.copyOf(chosen);
    }

    /** Called once the pool is no longer served (delete files it wrote). */
    default void stopped() {
    }
}
