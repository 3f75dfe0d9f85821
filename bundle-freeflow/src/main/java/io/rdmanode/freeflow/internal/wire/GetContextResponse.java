// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** GET_CONTEXT: async fd (no async events in phase 1: -1) and the number of completion vectors. */
public record GetContextResponse(int asyncFd, int numCompVectors) {
    static final Layout L = LayoutTable.struct("get_context_rsp");

    public ByteBuffer encode() {
        return Wire.allocate(L.size()).putInt(L.off("async_fd"), asyncFd).putInt(L.off("num_comp_vectors"), numCompVectors);
    }
}
