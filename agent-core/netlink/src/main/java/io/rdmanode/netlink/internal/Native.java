// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.netlink.internal;

import io.rdmanode.netlink.NetlinkException;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Runtime;

/** libc loaded once through jnr-ffi, and errno as a {@link NetlinkException}. */
final class Native {

    private static volatile LibC libc;

    private Native() {
    }

    /** Loads libc once; a {@link NetlinkException} when jnr-ffi cannot (no native stub for this CPU). */
    static LibC libc() {
        LibC l = libc;
        if (l == null) {
            try {
                l = LibraryLoader.create(LibC.class).load("c");
            } catch (RuntimeException | LinkageError e) {
                throw new NetlinkException("cannot load libc through jnr-ffi: " + e);
            }
            libc = l;
        }
        return l;
    }

    static int errno() {
        return Runtime.getRuntime(libc()).getLastError();
    }

    static NetlinkException fail(String call) {
        int e = errno();
        return new NetlinkException(call + ": " + libc().strerror(e) + " (" + NetlinkException.errnoName(e) + ")", e);
    }
}
