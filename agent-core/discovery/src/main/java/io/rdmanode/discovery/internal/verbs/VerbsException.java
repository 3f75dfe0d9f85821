// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.verbs;

/** A verbs call failed: the message names the call, the device if any, and the reason. */
public final class VerbsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public VerbsException(String message) {
        super(message);
    }
}
