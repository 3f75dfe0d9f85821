// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.handover.internal;

import io.rdmanode.posix.Posix;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** A {@code struct sockaddr_un} for a path, as {@link Posix#bind} and {@link Posix#connect} take it. */
final class UnixAddress {

    /** {@code sun_path} holds 108 bytes with the terminating NUL. */
    private static final int MAX_PATH = 107;

    private UnixAddress() {
    }

    static byte[] of(Path path) throws IOException {
        byte[] p = path.toString().getBytes(StandardCharsets.UTF_8);
        if (p.length > MAX_PATH) {
            throw new IOException("cannot use " + path + " as a Unix socket: longer than " + MAX_PATH + " bytes");
        }
        byte[] addr = new byte[2 + p.length + 1];
        addr[0] = Posix.AF_UNIX;
        System.arraycopy(p, 0, addr, 2, p.length);
        return addr;
    }
}
