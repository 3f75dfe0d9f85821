// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.wire;

import java.nio.ByteBuffer;

/**
 * FFR_GET_ASYNC_EVENT: one async event in the kernel's {@code ib_uverbs_async_event_desc} layout. {@code element} is
 * the tenant's own handle of the QP, CQ or SRQ (never the device's pointer, never another tenant's), or the port
 * number for port events; {@code ret} is 0, or EAGAIN when no event is queued.
 */
public record AsyncEventResponse(long element, int eventType, int ret) {
    static final Layout L = LayoutTable.struct("async_event_rsp");

    public static AsyncEventResponse none() {
        return new AsyncEventResponse(0, 0, Errno.EAGAIN);
    }

    public ByteBuffer encode() {
        return Wire.allocate(L.size()).putLong(L.off("element"), element).putInt(L.off("event_type"), eventType)
                .putInt(L.off("ret"), ret);
    }
}
