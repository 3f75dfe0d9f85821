// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni;

import java.time.Instant;

/**
 * One RDMA device in one pod.
 *
 * @param network      the CNI network name ({@code name} in the config)
 * @param containerId  CNI_CONTAINERID
 * @param ifname       CNI_IFNAME
 * @param netns        CNI_NETNS at ADD
 * @param podNamespace K8S_POD_NAMESPACE from CNI_ARGS, empty outside Kubernetes
 * @param podName      K8S_POD_NAME from CNI_ARGS, empty outside Kubernetes
 * @param pciAddress   the VF's PCI address (deviceID)
 * @param rdmaDevice   the RDMA device moved into the pod, e.g. {@code mlx5_7}
 * @param since        when ADD committed
 */
public record PodAttachment(String network, String containerId, String ifname, String netns, String podNamespace,
                            String podName, String pciAddress, String rdmaDevice, Instant since) {
}
