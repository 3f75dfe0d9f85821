// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.util.List;

/**
 * SR-IOV state of a physical function ({@code sriov_totalvfs}, {@code sriov_numvfs}, {@code virtfnI} in
 * {@code sysfs-bus-pci}).
 *
 * @param virtualFunctions the {@code virtfnI} links, by VF index
 * @since 1.0
 */
public record SriovInfo(int totalVfs, int numVfs, List<VirtualFunction> virtualFunctions) {

    public SriovInfo {
        virtualFunctions = List.copyOf(virtualFunctions);
    }

    /** VF {@code index} (0-based, the I of {@code virtfnI}) at {@code address}. */
    public record VirtualFunction(int index, PciAddress address) { }
}
