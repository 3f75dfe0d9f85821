// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.deviceplugin;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * A character device a container of the candidate needs, named relative to a {@code /dev} directory so the
 * agent's reading root, the node's root and the container's {@code /dev} never mix (see {@link DevicePaths}).
 *
 * @param kind         {@code uverbs}, {@code umad}, {@code issm}, {@code rdma_cm} (and later {@code vfio}, ...)
 * @param relativePath path under {@code /dev}, e.g. {@code infiniband/uverbs0}; never absolute
 * @param agentPath    where the agent saw (or expected) it, under discovery's dev root; for messages only
 * @param absentReason empty exactly when the node exists
 * @since 1.0
 */
public record DeviceFile(String kind, String relativePath, Path agentPath, Optional<String> absentReason) {

    public DeviceFile {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(agentPath, "agentPath");
        Objects.requireNonNull(absentReason, "absentReason");
        if (relativePath.isEmpty() || relativePath.startsWith("/") || relativePath.contains("..")) {
            throw new IllegalArgumentException("device file path '" + relativePath
                    + "' must be relative to /dev without '..'");
        }
    }

    public boolean present() {
        return absentReason.isEmpty();
    }
}
