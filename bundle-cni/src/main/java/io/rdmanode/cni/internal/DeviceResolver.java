// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.cni.internal;

import java.util.List;
import java.util.Optional;

/** PCI function to RDMA device names, and whether the source is healthy (discovery in the agent). */
interface DeviceResolver {

    /** The RDMA devices under the PCI function; empty Optional when the function is unknown. */
    Optional<List<String>> rdmaDevices(String pciAddress);

    /** The kernel driver behind an RDMA device, for error messages; empty when unknown. */
    default Optional<String> driver(String rdmaDevice) {
        return Optional.empty();
    }

    /** Empty when ready; otherwise why not. */
    Optional<String> notReady();
}
