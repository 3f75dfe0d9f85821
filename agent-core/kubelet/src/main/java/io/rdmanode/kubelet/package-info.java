// SPDX-License-Identifier: Apache-2.0
/**
 * The device-plugin host: serves kubelet device plugins (kubelet {@code deviceplugin/v1beta1}) on Unix sockets,
 * registers them with kubelet and keeps them registered across kubelet restarts. A device-plugin bundle
 * implements {@link io.rdmanode.kubelet.DevicePlugin} and hands it to {@link io.rdmanode.kubelet.DevicePluginHost#serve}.
 * No gRPC, protobuf or Netty type appears here.
 *
 * @since 1.0
 */
@Export
@Version("1.0.0")
package io.rdmanode.kubelet;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
