// SPDX-License-Identifier: Apache-2.0
/**
 * The device-plugin host: serves kubelet device plugins (kubelet {@code deviceplugin/v1beta1}) on Unix sockets,
 * registers them with kubelet and keeps them registered across kubelet restarts. A device-plugin bundle
 * implements {@link io.rdmanode.kubelet.DevicePlugin} and hands it to {@link io.rdmanode.kubelet.DevicePluginHost#serve}.
 * {@link io.rdmanode.kubelet.UnixSocketServers} serves any gRPC API on a Unix socket the same way (since 1.1).
 * {@link io.rdmanode.kubelet.ExtendedResourceNames} is the host's resource-name rule, for plugin bundles'
 * configuration validators (since 1.2).
 * {@link io.rdmanode.kubelet.PodDevices} says what running pods hold, from kubelet's pod-resources API or its
 * device-manager checkpoint (since 1.3).
 * No protobuf or Netty type appears here; gRPC only as the service a caller brings.
 *
 * @since 1.0
 */
@Export
@Version("1.3.0")
package io.rdmanode.kubelet;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
