// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** A body holding a router fd number: DESTROY_COMP_CHANNEL and GET_CQ_EVENT. */
public record FdRequest(int fd) {
    static final Layout L = LayoutTable.struct("fd_req");

    public static FdRequest decode(ByteBuffer b) {
        int fd = Wire.i32(b, L.off("fd"));
        if (fd < 0 || fd >= Wire.MAP_SIZE) {
            throw new WireException(Errno.EINVAL, "channel " + fd + " out of range 0.." + (Wire.MAP_SIZE - 1));
        }
        return new FdRequest(fd);
    }
}
