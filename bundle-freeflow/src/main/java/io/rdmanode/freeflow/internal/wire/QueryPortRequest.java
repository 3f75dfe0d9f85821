// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** QUERY_PORT: {@code u8 port_num}. */
public record QueryPortRequest(int portNum) {
    static final Layout L = LayoutTable.struct("query_port_req");

    public static QueryPortRequest decode(ByteBuffer b) {
        return new QueryPortRequest(Wire.u8(b, L.off("port_num")));
    }
}
