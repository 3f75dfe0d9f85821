// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** QUERY_QP: cmd_size + the raw kernel {@code ibv_query_qp} command; qp_handle and attr_mask are read from it. */
public record QueryQpRequest(int handle, int attrMask) {
    static final Layout L = LayoutTable.struct("query_qp_req");

    public static QueryQpRequest decode(ByteBuffer b) {
        return new QueryQpRequest(Wire.handle(b, L.off("qp_handle"), "QP"), Wire.i32(b, L.off("attr_mask")));
    }
}
