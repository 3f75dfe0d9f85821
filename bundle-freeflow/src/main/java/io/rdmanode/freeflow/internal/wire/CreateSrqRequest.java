// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/**
 * CREATE_SRQ: PD and {@code struct ibv_srq_init_attr} (the client's srq_context pointer is not ours to read;
 * max_wr, max_sge; srq_limit, which verbs ignores at creation: the limit is armed by MODIFY_SRQ).
 */
public record CreateSrqRequest(int pdHandle, int maxWr, int maxSge) {
    static final Layout L = LayoutTable.struct("create_srq_req");

    public static CreateSrqRequest decode(ByteBuffer b) {
        int maxWr = Wire.i32(b, L.off("max_wr"));
        int maxSge = Wire.i32(b, L.off("max_sge"));
        if (maxWr < 1 || maxSge < 1) {
            throw new WireException(Errno.EINVAL, "SRQ with max_wr " + Integer.toUnsignedString(maxWr) + ", max_sge "
                    + Integer.toUnsignedString(maxSge) + ": both must be at least 1");
        }
        return new CreateSrqRequest(Wire.handle(b, L.off("pd_handle"), "PD"), maxWr, maxSge);
    }
}
