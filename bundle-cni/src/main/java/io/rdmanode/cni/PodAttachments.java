// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni;

import java.util.List;
import java.util.Optional;
import org.osgi.annotation.versioning.ProviderType;

/** The RDMA devices the CNI plugin has moved into pods, as its persisted state says; a snapshot per call. */
@ProviderType
public interface PodAttachments {

    /** Every completed attachment (ADD answered, no DEL yet), sorted by pod. */
    List<PodAttachment> attachments();

    /** The attachment holding {@code rdmaDevice}, if one does. */
    default Optional<PodAttachment> byRdmaDevice(String rdmaDevice) {
        return attachments().stream().filter(a -> a.rdmaDevice().equals(rdmaDevice)).findFirst();
    }
}
