// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/** REG_MR_MAPPING: lkey, the application's address of the MR (remote addresses are relative to it), shm address. */
public record RegMrMappingRequest(int key, long mrPtr, long shmPtr) {
    static final Layout L = LayoutTable.struct("reg_mr_mapping_req");

    public static RegMrMappingRequest decode(ByteBuffer b) {
        return new RegMrMappingRequest(Wire.i32(b, L.off("key")), b.getLong(L.off("mr_ptr")), b.getLong(L.off("shm_ptr")));
    }
}
