// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet;

import java.nio.file.Path;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A resource being served by the {@link DevicePluginHost}. Thread-safe.
 *
 * @since 1.0
 */
@ProviderType
public interface ServedResource extends AutoCloseable {

    String resourceName();

    /** The plugin's socket in the device-plugins directory. */
    Path socket();

    /** Whether kubelet accepted the latest registration and no kubelet restart happened since. */
    boolean registered();

    /**
     * Tells the host the device list may have changed: it reads {@link DevicePlugin#devices()} and sends the
     * full list on every open {@code ListAndWatch} stream when it differs from the last one sent. Cheap when
     * nothing changed; call it from any thread.
     */
    void devicesChanged();

    /**
     * Ends the {@code ListAndWatch} streams, stops the server (bounded by the host's shutdown timeout) and
     * deletes the socket. Idempotent.
     */
    @Override
    void close();
}
