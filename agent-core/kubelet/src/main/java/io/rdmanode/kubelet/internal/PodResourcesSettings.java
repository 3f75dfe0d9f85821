// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import java.nio.file.Path;

/**
 * Where kubelet says what running pods hold.
 *
 * @param socket          kubelet's pod-resources socket ({@code v1.PodResourcesLister})
 * @param checkpoint      kubelet's device-manager checkpoint, the fallback
 * @param timeoutMillis   deadline of one {@code List} call, dial included
 * @param maxInboundBytes largest {@code List} answer accepted (kubelet on a big node lists many pods)
 */
public record PodResourcesSettings(Path socket, Path checkpoint, long timeoutMillis, int maxInboundBytes) {

    public static final String DEFAULT_SOCKET = "/var/lib/kubelet/pod-resources/kubelet.sock";
    public static final int DEFAULT_MAX_INBOUND_BYTES = 64 << 20;

    /** Defaults for a device-plugins directory: the checkpoint in it, a 1 s deadline, 64 MiB answers. */
    public static PodResourcesSettings of(Path socket, Path pluginDir) {
        return new PodResourcesSettings(socket, pluginDir.resolve(KubeletCheckpoint.FILE_NAME), 1000,
                DEFAULT_MAX_INBOUND_BYTES);
    }
}
