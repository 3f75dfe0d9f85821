// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** CREATE_COMP_CHANNEL: the router's number for the channel (sent after the fd itself); -1 when refused. */
public record CompChannelResponse(int fd) {
    static final Layout L = LayoutTable.struct("comp_channel_rsp");

    public ByteBuffer encode() {
        return Wire.allocate(L.size()).putInt(L.off("fd"), fd);
    }
}
