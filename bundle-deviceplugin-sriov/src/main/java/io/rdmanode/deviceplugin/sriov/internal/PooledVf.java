// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import java.util.Optional;

/**
 * A VF in a pool on one snapshot.
 *
 * @param rdma          its RDMA device and nodes: from the host, or from the ledger while in a pod netns
 * @param inPodNetns    its RDMA device is in a pod's network namespace (exclusive mode): not on the host
 * @param unhealthy     why it cannot be used now; empty when healthy
 */
public record PooledVf(SriovVf vf, Optional<VfRdma> rdma, boolean inPodNetns, Optional<String> unhealthy) {

    public boolean healthy() {
        return unhealthy.isEmpty();
    }
}
