// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import java.util.List;
import java.nio.file.Path;

/**
 * Settings every device plugin shares (configuration PID {@code io.rdmanode.deviceplugin.common}).
 *
 * @param paths       host-side device paths for Allocate
 * @param cdiSpecDirs directories where this agent's CDI specs may be; stale ones are removed at start
 * @since 1.0
 */
public record LayerSettings(DevicePaths paths, List<Path> cdiSpecDirs) {

    public static final LayerSettings DEFAULT = new LayerSettings(DevicePaths.DEFAULT, List.of(Path.of("/var/run/cdi")));

    public LayerSettings {
        cdiSpecDirs = List.copyOf(cdiSpecDirs);
    }
}
