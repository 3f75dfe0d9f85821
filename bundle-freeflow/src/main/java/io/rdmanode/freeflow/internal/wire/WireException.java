// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

/** A request the router refuses: the errno it answers with and a message for the log. */
public final class WireException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int errno;

    public WireException(int errno, String message) {
        super(message, null, false, false);
        this.errno = errno;
    }

    public int errno() {
        return errno;
    }
}
