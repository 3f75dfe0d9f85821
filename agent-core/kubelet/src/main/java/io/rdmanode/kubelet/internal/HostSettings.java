// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import java.nio.file.Path;

/**
 * The device-plugin host's settings, from the {@code io.rdmanode.kubelet} configuration.
 *
 * @param pluginDir          kubelet's device-plugins directory; plugin sockets are created here
 * @param kubeletSocket      kubelet's registration socket, normally {@code pluginDir/kubelet.sock}
 * @param registrationTimeout milliseconds a {@code Register} call may take
 * @param shutdownTimeout    milliseconds a server may take to stop before it is forced
 * @param resyncInterval     milliseconds between safety-net checks of sockets and registrations
 * @param ioThreads          event loop threads shared by all servers and clients
 */
public record HostSettings(Path pluginDir, Path kubeletSocket, long registrationTimeout, long shutdownTimeout,
                           long resyncInterval, int ioThreads) {
}
