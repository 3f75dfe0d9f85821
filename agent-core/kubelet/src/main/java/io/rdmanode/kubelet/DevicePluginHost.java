// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet;

import java.util.List;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Serves device plugins to the local kubelet. One gRPC server per resource, on a Unix socket (mode 0600) in
 * the configured device-plugins directory, registered with kubelet through {@code kubelet.sock} (kubelet
 * {@code deviceplugin/v1beta1}, classic registration). When kubelet restarts (it deletes the plugin sockets and
 * creates a new {@code kubelet.sock}) the host rebuilds the server and registers again. Thread-safe.
 *
 * @since 1.0
 */
@ProviderType
public interface DevicePluginHost {

    /**
     * Starts serving {@code plugin} and registers it with kubelet. Returns once the socket is listening;
     * registration happens in the background (and again after every kubelet restart), so an absent kubelet
     * is not an error. Closing the result stops serving and deletes the socket.
     *
     * @throws IllegalArgumentException when the resource name is not an extended resource name or is
     *         already served by this host
     * @throws DevicePluginException    when the socket cannot be created (code {@code UNAVAILABLE})
     */
    ServedResource serve(DevicePlugin plugin);

    /** Figures of every resource served now, for metrics; a snapshot, sorted by resource name. */
    List<ResourceFigures> figures();
}
