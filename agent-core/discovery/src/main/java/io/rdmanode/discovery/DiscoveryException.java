// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A required fact about the host could not be read or parsed. The message has the shape
 * "what failed, on what: why", e.g. {@code cannot read /sys/class/infiniband/mlx5_0/ports/1/state: No such file}.
 *
 * @since 1.0
 */
public class DiscoveryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient Path path;
    private final String reason;

    public DiscoveryException(String what, Path path, String reason, Throwable cause) {
        super(what + " " + path + ": " + reason, cause);
        this.path = Objects.requireNonNull(path, "path");
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public DiscoveryException(String what, Path path, String reason) {
        this(what, path, reason, null);
    }

    /** The file or directory concerned. */
    public Path path() {
        return path;
    }

    /** Why it failed, without the path, e.g. {@code No such file or directory}. */
    public String reason() {
        return reason;
    }
}
