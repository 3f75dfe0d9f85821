// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet;

import java.util.Objects;

/**
 * One device a container of a running pod holds, as kubelet records it. The pod-resources API names the pod
 * ({@code namespace}, {@code pod}) and leaves {@code podUid} empty; the checkpoint gives only {@code podUid}, and
 * {@code namespace} and {@code pod} are empty.
 *
 * @param resourceName the extended resource, e.g. {@code rdma/sriov_a}
 * @param deviceId     the device ID the plugin advertised in ListAndWatch
 * @since 1.3
 */
public record HeldDevice(String namespace, String pod, String podUid, String container, String resourceName,
                         String deviceId) {

    public HeldDevice {
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(pod, "pod");
        Objects.requireNonNull(podUid, "podUid");
        Objects.requireNonNull(container, "container");
        Objects.requireNonNull(resourceName, "resourceName");
        Objects.requireNonNull(deviceId, "deviceId");
    }

    /** {@code namespace/pod}, or the pod UID when the source gives no name. */
    public String podKey() {
        return pod.isEmpty() ? podUid : namespace + "/" + pod;
    }
}
