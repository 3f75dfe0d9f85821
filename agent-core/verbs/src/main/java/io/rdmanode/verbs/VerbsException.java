// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.verbs;

/**
 * A verbs call failed: the message names the call, the device if any, and the reason, e.g.
 * {@code ibv_open_device mlx5_0: No such device (errno 19)}.
 */
public final class VerbsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public VerbsException(String message) {
        super(message);
    }
}
