// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

/**
 * Whether a candidate has an RDMA device, as far as the agent's network namespace can tell.
 *
 * @since 1.0
 */
public enum RdmaPresence {
    /** The RDMA device is visible here ({@link CandidateDevice#rdma()} is present). */
    PRESENT,
    /**
     * Not visible here but presumed to exist in another network namespace: the RDMA netns mode is exclusive
     * and the function is an RDMA-capable VF (its driver or its PF has RDMA devices) bound to a kernel network
     * driver, so its RDMA device was most likely moved into a pod (rdma-cni). Counts as RDMA for {@code isRdma}.
     */
    OTHER_NAMESPACE,
    /** No RDMA device (no RDMA driver, bound to {@code vfio-pci}, unbound, or RDMA not enabled). */
    NONE
}
