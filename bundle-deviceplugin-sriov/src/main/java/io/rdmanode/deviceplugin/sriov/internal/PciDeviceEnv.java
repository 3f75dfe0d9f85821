// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The environment the SR-IOV device plugin's users rely on: {@code PCIDEVICE_<PREFIX>_<NAME>} with the
 * allocated PCI addresses, comma-separated, and {@code PCIDEVICE_<PREFIX>_<NAME>_INFO} with a JSON object per
 * device ({@code generic}, {@code rdma}, {@code vfio} as the peer writes them). Unlike the peer, which only
 * replaces {@code .}, every character that is not a letter, digit or {@code _} becomes {@code _}, so the
 * name is a valid shell identifier for any resource name ({@code rdma/sriov-a} → {@code PCIDEVICE_RDMA_SRIOV_A}).
 */
public final class PciDeviceEnv {

    private PciDeviceEnv() {
    }

    public static String variable(String resourcePrefix, String resourceName) {
        return "PCIDEVICE_" + shellSafe(resourcePrefix) + "_" + shellSafe(resourceName);
    }

    /** Upper case, every character but A-Z, 0-9 and _ as _ (a loop, not replaceAll: it runs at every Allocate). */
    static String shellSafe(String s) {
        String upper = s.toUpperCase(Locale.ROOT);
        StringBuilder out = new StringBuilder(upper.length());
        upper.codePoints().forEach(c -> out.append(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
                ? (char) c : '_'));                        // one _ per code point, as the pattern replaced
        return out.toString();
    }

    /**
     * Both variables for one container.
     *
     * @param info device ID to provider ({@code generic}, {@code rdma}, {@code vfio}) to key/value, in order
     */
    public static Map<String, String> of(String resourcePrefix, String resourceName, List<String> ids,
                                         Map<String, Map<String, Map<String, String>>> info) {
        String name = variable(resourcePrefix, resourceName);
        Map<String, String> env = new LinkedHashMap<>();
        env.put(name, String.join(",", ids));
        env.put(name + "_INFO", Json.write(info));
        return env;
    }
}
