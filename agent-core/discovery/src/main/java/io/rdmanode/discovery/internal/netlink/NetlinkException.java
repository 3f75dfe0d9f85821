// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.discovery.internal.netlink;

/** A netlink call failed; the message names the call and errno's text. */
public final class NetlinkException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public NetlinkException(String message) {
        super(message);
    }
}
