// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/**
 * The answer to a request the router refuses: the function's response struct, zeroed, with the errno in its
 * ret field when it has one (SOCKET_* use -errno, as libfsocket expects). The client always gets the number of
 * bytes it waits for, so it never spins on a half answer.
 */
public final class ErrorResponse {
    private ErrorResponse() {
    }

    public static ByteBuffer of(FuncSpec spec, int errno) {
        if (spec == null || spec.response() == null) {
            return new RetResponse(errno).encode();
        }
        ByteBuffer b = Wire.allocate(spec.response().size());
        if (spec.hasRet()) {
            b.putInt(spec.response().off(spec.retField()), spec.name().startsWith("SOCKET_") ? -errno : errno);
        }
        if (spec.id() == Func.CREATE_COMP_CHANNEL) {
            b.putInt(0, -1);
        }
        if (spec.id() == Func.CM_CREATE_EVENT_CHANNEL) {
            b.putInt(spec.response().off("value"), -1); // ec.fd: no channel (rdma_create_event_channel returns NULL)
        }
        return b;
    }
}
