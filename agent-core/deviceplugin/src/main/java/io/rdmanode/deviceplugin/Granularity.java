// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

/**
 * What one {@link CandidateDevice} stands for.
 *
 * @since 1.0
 */
public enum Granularity {
    /**
     * One RDMA device of the host (an HCA, a PF's or VF's RDMA device, a soft device such as rxe): what the
     * shared-HCA plugin pools. Keyed by the RDMA device name.
     */
    HCA,
    /**
     * One network PCI function (PF or VF), with or without an RDMA device: VFs bound to {@code vfio-pci} and
     * VFs whose RDMA device sits in a pod's network namespace are included. Keyed by the PCI address.
     */
    PCI_FUNCTION,
    /** {@link #PCI_FUNCTION} restricted to SR-IOV virtual functions: what the SR-IOV plugin pools. */
    VF
}
