// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * One character device node an RDMA workload needs ({@code /dev/infiniband/uverbsN}, {@code umadN},
 * {@code issmN}, {@code rdma_cm}). Never silently left out: a node that is missing is reported with
 * {@code present == false} and the reason (module not loaded, node not created, port without MAD support).
 * {@link #path} is where the node is, or where it would be expected.
 *
 * @param kind       {@code uverbs}, {@code umad}, {@code issm} or {@code rdma_cm}
 * @param path       node path under the configured dev root, e.g. {@code /dev/infiniband/uverbs0}
 * @param number     major:minor from the sysfs class entry's {@code dev} file, when that entry exists
 * @param absentReason empty exactly when present
 * @since 1.0
 */
public record CharDevice(String kind, Path path, Optional<DeviceNumber> number, Optional<String> absentReason) {

    /** A Linux dev_t split as {@code major:minor}. */
    public record DeviceNumber(int major, int minor) {
        @Override
        public String toString() {
            return major + ":" + minor;
        }
    }

    public CharDevice {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(number, "number");
        Objects.requireNonNull(absentReason, "absentReason");
    }

    public static CharDevice present(String kind, Path path, DeviceNumber number) {
        return new CharDevice(kind, path, Optional.of(number), Optional.empty());
    }

    public static CharDevice absent(String kind, Path path, Optional<DeviceNumber> number, String reason) {
        return new CharDevice(kind, path, number, Optional.of(reason));
    }

    public boolean present() {
        return absentReason.isEmpty();
    }
}
