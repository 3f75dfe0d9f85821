// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.wire.LayoutTable;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A fast-path mailbox ({@code struct CtrlShmPiece}, 2 097 156 bytes): state word, 1 MiB request, 1 MiB response.
 * The client writes the request then stores REQ_DONE after a barrier; the router reads the state with acquire
 * semantics, answers, and publishes RSP_DONE with release semantics, so the client sees the whole answer.
 */
final class Mailbox {
    enum Kind { QP, CQ, SRQ }

    static final int IDLE = 0;
    static final int REQ_DONE = 1;
    static final int RSP_DONE = 2;
    static final int SIZE = LayoutTable.struct("mailbox").size();
    static final int REQ = LayoutTable.struct("mailbox").off("req");
    static final int RSP = LayoutTable.struct("mailbox").off("rsp");
    static final int AREA = 1 << 20;
    private static final VarHandle STATE = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    final Kind kind;
    final Tenant tenant;
    final int handle;
    final ShmFile file;
    final ByteBuffer buf;
    /** The QP or CQ this mailbox serves, null once destroyed (router-guarded: the fast path needs no table lookup). */
    QueuePair qp;
    CompletionQueue cq;

    Mailbox(Kind kind, Tenant tenant, int handle, ShmFile file) {
        this.kind = kind;
        this.tenant = tenant;
        this.handle = handle;
        this.file = file;
        this.buf = file.buffer();
    }

    boolean requested() {
        return (int) STATE.getAcquire(buf, 0) == REQ_DONE;
    }

    void respond() {
        STATE.setRelease(buf, 0, RSP_DONE);
    }

    int state() {
        return (int) STATE.getAcquire(buf, 0);
    }
}
