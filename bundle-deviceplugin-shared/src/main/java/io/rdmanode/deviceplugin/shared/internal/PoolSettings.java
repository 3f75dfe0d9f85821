// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.shared.internal;

import io.rdmanode.agent.SettingException;
import io.rdmanode.deviceplugin.Selectors;
import io.rdmanode.kubelet.Device;
import io.rdmanode.kubelet.ExtendedResourceNames;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One pool's settings, checked: the resource name kubelet will accept, IDs that fit 63 characters, at least
 * one selector. Built from the component's {@code Config}; a refused value is a {@link SettingException} naming
 * its property.
 *
 * @param name         the pool's name (factory configuration name); device IDs are {@code <resourceName>-<n>}
 * @param resourceName name part of the extended resource, e.g. {@code hca_a}
 * @param resourcePrefix domain part, e.g. {@code rdma}
 * @param cdiSpecDir   where CDI spec files go when CDI is on; empty when it is off
 */
public record PoolSettings(String name, String resourcePrefix, String resourceName, int rdmaHcaMax,
                           Selectors selectors, Optional<Path> cdiSpecDir) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

    public PoolSettings {
        if (!NAME.matcher(resourceName).matches()) {
            throw new SettingException("resourceName", "pool " + name + ": resourceName '" + resourceName
                    + "' must be letters, digits, '.', '_' or '-', alphanumeric at both ends");
        }
        int longestId = (resourceName + "-" + (rdmaHcaMax - 1)).length();
        if (longestId > Device.MAX_ID_LENGTH) {
            throw new SettingException("resourceName", "pool " + name + ": resourceName '" + resourceName
                    + "' is too long: device IDs would have " + longestId + " characters, kubelet allows 63");
        }
        if (rdmaHcaMax < 1) {
            throw new SettingException("rdmaHcaMax", "pool " + name + ": rdmaHcaMax " + rdmaHcaMax + " must be at least 1");
        }
        if (selectors.isEmpty()) {
            throw new SettingException("selectors", "pool " + name + " has no selectors: set at least one of "
                    + "selectors.vendors, deviceIDs, drivers, ifNames, linkTypes");
        }
        // resourceName passed kubelet's name rule above (and fits 61 characters), so what is left is the prefix's.
        ExtendedResourceNames.problem(resourcePrefix + "/" + resourceName).ifPresent(p -> {
            throw new SettingException("resourcePrefix", "pool " + name + ": " + p);
        });
    }

    /** {@code <resourcePrefix>/<resourceName>}. */
    public String extendedResourceName() {
        return resourcePrefix + "/" + resourceName;
    }

    public String deviceId(int index) {
        return resourceName + "-" + index;
    }
}
