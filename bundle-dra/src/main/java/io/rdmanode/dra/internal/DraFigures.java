// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.dra.internal;

/**
 * The driver's figures for its metrics collector, a service inside this bundle (not exported): the collector is a
 * component of its own so that the driver runs without client_java.
 */
public interface DraFigures {

    DraStats stats();

    /** Claims in the checkpoint now. */
    int preparedClaims();

    /** Each pool's published generation (0 before its first publish), pools in configured order. */
    java.util.Map<String, Long> sliceGenerations();

    /** The PCI addresses prepared for pod {@code podUid} ({@link DraPodDevices}); empty when disabled. */
    default java.util.List<String> devicesOfPod(String podUid) {
        return java.util.List.of();
    }
}
