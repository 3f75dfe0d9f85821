// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

/** The Linux errno values the router answers with (asm-generic/errno-base.h, errno.h). */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EBUSY = 16;
    public static final int EINVAL = 22;
    public static final int EMFILE = 24;
    public static final int ENOSPC = 28;
    public static final int EMSGSIZE = 90;
    public static final int EOPNOTSUPP = 95;
    public static final int EDQUOT = 122;

    private Errno() {
    }
}
