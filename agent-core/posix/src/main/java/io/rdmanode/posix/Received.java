// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.posix;

import java.util.Arrays;

/**
 * What one {@link Posix#recvmsg} got: the byte count (0 at end of stream) and the descriptors that came with the
 * bytes as {@code SCM_RIGHTS}, now open in this process and owned by the caller.
 */
public record Received(long bytes, int[] fds) {

    public Received {
        fds = fds.clone();
    }

    @Override
    public int[] fds() {
        return fds.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Received r && r.bytes == bytes && Arrays.equals(r.fds, fds);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(bytes) * 31 + Arrays.hashCode(fds);
    }

    @Override
    public String toString() {
        return "Received[bytes=" + bytes + ", fds=" + Arrays.toString(fds) + "]";
    }
}
