// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink;

import io.rdmanode.posix.Errno;

/** A netlink (or namespace) call failed; the message names the call and errno's text, {@link #errno()} its number. */
public final class NetlinkException extends RuntimeException {

    private static final long serialVersionUID = 1L;
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int EPROTONOSUPPORT = 93;
    public static final int EOPNOTSUPP = 95;
    public static final int ETIMEDOUT = 110;

    private final int errno;

    public NetlinkException(String message) {
        this(message, 0);
    }

    public NetlinkException(String message, int errno) {
        super(message);
        this.errno = errno;
    }

    /** The kernel's errno (positive), 0 when the failure has none. */
    public int errno() {
        return errno;
    }

    /** The symbolic name of an errno ({@code EOPNOTSUPP}), or {@code errno N}. */
    public static String errnoName(int errno) {
        return Errno.name(errno);
    }
}
