// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.testing;

import io.rdmanode.kubelet.PodDevices;
import io.rdmanode.kubelet.PodHoldings;
import io.rdmanode.kubelet.internal.KubeletPodDevices;
import io.rdmanode.kubelet.internal.PodResourcesSettings;
import java.nio.file.Path;
import java.util.Map;

/**
 * The real {@link PodDevices} (kubelet's pod-resources API, then its checkpoint) outside OSGi, for other
 * modules' tests, e.g. against {@link KubeletDouble}. Needs Jackson databind on the test class path (the
 * checkpoint reader's JSON library).
 */
public final class PodDevicesClient implements PodDevices, AutoCloseable {

    private final KubeletPodDevices delegate;

    private PodDevicesClient(KubeletPodDevices delegate) {
        this.delegate = delegate;
    }

    /** Asks {@code podResourcesSocket}, then reads {@code pluginDir/kubelet_internal_checkpoint}; 1 s deadline. */
    public static PodDevicesClient open(Path podResourcesSocket, Path pluginDir) {
        return new PodDevicesClient(new KubeletPodDevices(PodResourcesSettings.of(podResourcesSocket, pluginDir)));
    }

    /** As {@link #open(Path, Path)} with a deadline of {@code timeoutMillis} per List call. */
    public static PodDevicesClient open(Path podResourcesSocket, Path pluginDir, long timeoutMillis) {
        PodResourcesSettings defaults = PodResourcesSettings.of(podResourcesSocket, pluginDir);
        return new PodDevicesClient(new KubeletPodDevices(new PodResourcesSettings(defaults.socket(),
                defaults.checkpoint(), timeoutMillis, defaults.maxInboundBytes())));
    }

    @Override
    public PodHoldings running() {
        return delegate.running();
    }

    /** What {@code /status} shows under {@code kubelet.podResources}. */
    public Map<String, Object> status() {
        return delegate.status();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
