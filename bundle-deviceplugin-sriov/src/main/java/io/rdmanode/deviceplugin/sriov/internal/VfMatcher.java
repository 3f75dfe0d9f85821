// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import java.util.Optional;

/** A pool's selectors applied to one VF: why it does not match, or empty when it does. */
@FunctionalInterface
public interface VfMatcher {

    /**
     * @param vf the VF; when its RDMA device is in a pod netns, {@link SriovVf#rdmaDevices()} carries the name
     *           the ledger remembers, so {@code isRdma} still holds
     */
    Optional<String> exclusion(SriovVf vf, HostIndex host);
}
