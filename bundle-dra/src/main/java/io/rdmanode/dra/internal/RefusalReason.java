// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

/**
 * Why Prepare refused a claim, as the {@code reason} label of {@code rdma_agent_dra_prepare_refusals}: an
 * operator's first question is whether the API server, the node's devices, or another owner is to blame.
 */
enum RefusalReason {
    /** The claim is not in the API server (deleted before kubelet asked). */
    CLAIM_NOT_FOUND("claim_not_found"),
    /** The API server did not answer or refused the read (RBAC, network). */
    API_ERROR("api_error"),
    /** The claim was deleted and created again: kubelet asks for an older uid. */
    UID_MISMATCH("uid_mismatch"),
    /** No allocation result names this driver. */
    NOT_ALLOCATED_HERE("not_allocated_to_driver"),
    /** An allocated device is gone from the node or from its pool's selection, or in another pool now. */
    DEVICE_GONE("device_gone"),
    /** An allocated device is present but cannot be used (no RDMA device, unhealthy). */
    DEVICE_UNUSABLE("device_unusable"),
    /** An allocated device is prepared for another claim, or held by a pod through a device-plugin pool. */
    DEVICE_HELD("device_held"),
    /** The CDI spec or the checkpoint could not be written. */
    WRITE_FAILED("write_failed");

    final String label;

    RefusalReason(String label) {
        this.label = label;
    }
}
