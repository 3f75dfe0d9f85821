// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin.sriov.internal;

import io.rdmanode.agent.SettingException;
import io.rdmanode.kubelet.ExtendedResourceNames;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One SR-IOV pool's settings, checked: a resource name kubelet accepts, an absolute device-info directory; a
 * refused value is a {@link SettingException} naming its property.
 *
 * @param name           the pool's name (factory configuration name)
 * @param order          position in {@code deviceplugin.sriov.pools}: the first matching pool takes a VF
 * @param deviceInfoDir  where NPWG device-info files go
 * @param cdiSpecDir     where the pool's CDI spec goes when CDI is on; empty when it is off
 */
public record SriovPoolSettings(String name, int order, String resourcePrefix, String resourceName,
                                PreferredAllocator.Policy policy, boolean excludeTopology, Path deviceInfoDir,
                                Optional<Path> cdiSpecDir) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

    /** A pool without CDI. */
    public SriovPoolSettings(String name, int order, String resourcePrefix, String resourceName,
                             PreferredAllocator.Policy policy, boolean excludeTopology, Path deviceInfoDir) {
        this(name, order, resourcePrefix, resourceName, policy, excludeTopology, deviceInfoDir, Optional.empty());
    }

    public SriovPoolSettings {
        if (!deviceInfoDir.isAbsolute()) {
            throw new SettingException("deviceInfoDir", "pool " + name + ": deviceInfoDir '" + deviceInfoDir
                    + "' must be an absolute path (the SR-IOV CNI and Multus read it, e.g. /var/run/k8s.cni.cncf.io/devinfo/dp)");
        }
        if (!NAME.matcher(resourceName).matches() || resourceName.length() > 63) {
            throw new SettingException("resourceName", "pool " + name + ": resourceName '" + resourceName
                    + "' must be at most 63 letters, digits, '.', '_' or '-', alphanumeric at both ends");
        }
        // resourceName passed kubelet's name rule above, so what is left is the prefix's.
        ExtendedResourceNames.problem(resourcePrefix + "/" + resourceName).ifPresent(p -> {
            throw new SettingException("resourcePrefix", "pool " + name + ": " + p);
        });
    }

    /** {@code <resourcePrefix>/<resourceName>}. */
    public String extendedResourceName() {
        return resourcePrefix + "/" + resourceName;
    }
}
