// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

import java.util.List;

/**
 * One device of a prepared claim, as answered to kubelet and kept in the checkpoint.
 *
 * @param requests   the claim's requests the device was allocated for
 * @param pool       the ResourceSlice pool, as the allocation names it
 * @param device     the device's name in the slice ({@code pci-0000-3b-00-2})
 * @param cdiIds     fully qualified CDI device IDs the runtime applies
 * @param pciAddress the PCI function, the node-wide ownership key
 * @param rdmaDevice the RDMA device at prepare time ({@code mlx5_2})
 */
record PreparedDevice(List<String> requests, String pool, String device, List<String> cdiIds, String pciAddress,
                      String rdmaDevice) {

    PreparedDevice {
        requests = List.copyOf(requests);
        cdiIds = List.copyOf(cdiIds);
    }
}
