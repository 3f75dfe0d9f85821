// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.posix.UnixConnection;
import io.rdmanode.freeflow.internal.wire.RequestHeader;
import io.rdmanode.freeflow.internal.wire.Wire;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One control connection and the request being read on it. Handed between the control loop (reading, while it
 * is in the poll set) and a worker (executing and answering), one at a time; closed once, by whoever ends it.
 */
final class ControlConnection {
    final UnixConnection conn;
    /** Over its tenant's connection cap: its request is answered EAGAIN, then it is closed. */
    final boolean refused;
    final ByteBuffer header = Wire.allocate(RequestHeader.SIZE);
    ByteBuffer body;
    RequestHeader request;
    /** GET_CQ_EVENT's body was peeked, not read: closing now resets the client's read (ECONNRESET). */
    boolean bodyUnread;
    /** Has sent GET_CQ_EVENT: a completion channel's connection, idle between events by design. */
    boolean eventMode;
    volatile long lastActivityNanos = System.nanoTime();
    /** Bytes of an unfinished body charged to the server's budget ({@link ControlServer#charge}); 0 once read. */
    final java.util.concurrent.atomic.AtomicInteger charged = new java.util.concurrent.atomic.AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();

    ControlConnection(UnixConnection conn, boolean refused) {
        this.conn = conn;
        this.refused = refused;
    }

    int pid() {
        return conn.peer().pid();
    }

    /** Ready for the next request on the same connection. */
    void next() {
        header.clear();
        body = null;
        request = null;
        bodyUnread = false;
        lastActivityNanos = System.nanoTime();
    }

    /** True the first time only: the caller closes the descriptor and releases the counts. */
    boolean markClosed() {
        return closed.compareAndSet(false, true);
    }

    boolean closed() {
        return closed.get();
    }
}
