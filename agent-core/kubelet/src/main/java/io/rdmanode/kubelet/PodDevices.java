// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet;

import org.osgi.annotation.versioning.ProviderType;

/**
 * What running pods hold, as kubelet knows it: the truth an allocation ledger reconciles against. Asks kubelet's
 * pod-resources API ({@code v1.PodResourcesLister/List} on the configured socket) and, when that is not
 * reachable in time, reads kubelet's device-manager checkpoint ({@code <pluginDir>/kubelet_internal_checkpoint}).
 * Thread-safe; a call blocks at most the configured deadline (1 s by default) plus the checkpoint read.
 *
 * @since 1.3
 */
@ProviderType
public interface PodDevices {

    /**
     * Every device a container of a running pod holds now, from the first source that answers.
     *
     * @throws PodDevicesException when neither the API nor the checkpoint is available (for example on a node
     *                             where kubelet never ran), or the checkpoint is malformed; the message names
     *                             both reasons
     */
    PodHoldings running();
}
