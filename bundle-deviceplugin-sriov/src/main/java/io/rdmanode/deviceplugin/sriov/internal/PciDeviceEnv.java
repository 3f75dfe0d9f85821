// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import java.util.Locale;

/**
 * The environment the SR-IOV device plugin's users rely on: {@code PCIDEVICE_<PREFIX>_<NAME>} with the
 * allocated PCI addresses, comma-separated, and {@code PCIDEVICE_<PREFIX>_<NAME>_INFO} with a JSON object per
 * device ({@code generic}, {@code rdma}, {@code vfio} as the peer writes them). Unlike the peer, which only
 * replaces {@code .}, every character that is not a letter, digit or {@code _} becomes {@code _}, so the
 * name is a valid shell identifier for any resource name ({@code rdma/sriov-a} → {@code PCIDEVICE_RDMA_SRIOV_A}).
 * {@link VfAllocator} writes both values.
 */
public final class PciDeviceEnv {

    private PciDeviceEnv() {
    }

    public static String variable(String resourcePrefix, String resourceName) {
        return "PCIDEVICE_" + shellSafe(resourcePrefix) + "_" + shellSafe(resourceName);
    }

    /** Upper case, every character but A-Z, 0-9 and _ as _ (a loop, not replaceAll). */
    static String shellSafe(String s) {
        String upper = s.toUpperCase(Locale.ROOT);
        StringBuilder out = new StringBuilder(upper.length());
        upper.codePoints().forEach(c -> out.append(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
                ? (char) c : '_'));                        // one _ per code point, as the pattern replaced
        return out.toString();
    }
}
