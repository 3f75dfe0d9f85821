// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** CREATE_CQ: completion channel (router fd number or -1), completion vector, requested depth. */
public record CreateCqRequest(int channelFd, int compVector, int cqe) {
    static final Layout L = LayoutTable.struct("create_cq_req");

    public static CreateCqRequest decode(ByteBuffer b) {
        int cqe = Wire.i32(b, L.off("cqe"));
        if (cqe < 1) {
            throw new WireException(Errno.EINVAL, "CQ depth " + cqe + " < 1");
        }
        int channel = Wire.i32(b, L.off("channel_fd"));
        if (channel < -1 || channel >= Wire.MAP_SIZE) {
            throw new WireException(Errno.EINVAL, "completion channel " + channel + " out of range");
        }
        return new CreateCqRequest(channel, Wire.i32(b, L.off("comp_vector")), cqe);
    }
}
