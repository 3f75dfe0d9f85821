// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import io.rdmanode.discovery.HostSnapshot;
import io.rdmanode.kubelet.ContainerAllocation;
import io.rdmanode.kubelet.PluginOptions;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
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

    /**
     * Where the layer keeps the NPWG device-info files of this pool's devices ({@code <resource>-<id>-device.json},
     * every {@code /} a {@code -}): written when Allocate hands a device out, kept while a running container
     * holds it (across agent restarts: the SR-IOV CNI and Multus read them while the pod lives), written again
     * when missing, removed once kubelet lists no holder. Empty (the default): the pool has none.
     *
     * @since 2.1
     */
    default Optional<Path> deviceInfoDir() {
        return Optional.empty();
    }

    /**
     * The device-info of {@code deviceId} on {@code view}; empty when the view does not know the device (a
     * device held while an edit took it out of the pool keeps the file it has).
     *
     * @since 2.1
     */
    default Optional<DeviceInfo> deviceInfo(PoolView view, String deviceId) {
        return Optional.empty();
    }

    /**
     * Called once the pool is no longer served: release what the pool holds in this process. Files a runtime or
     * CNI reads (CDI specs, device-info) stay; the layer removes them when what they describe is gone.
     */
    default void stopped() {
    }
}
