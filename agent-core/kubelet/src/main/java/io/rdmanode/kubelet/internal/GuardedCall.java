// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.kubelet.internal;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;

/**
 * A server call that may be closed from two threads, its handler's and the deadline timer's: every method is
 * serialized, the first {@code close} wins and what the handler sends after it is dropped. Closing gives back the
 * slots the call was {@link #admit admitted} with, once, and interrupts the handler's thread if the deadline
 * closed it while the handler ran.
 */
final class GuardedCall<ReqT, RespT> extends SimpleForwardingServerCall<ReqT, RespT> {

    private Runnable onClose = () -> { };
    private boolean admitted;
    private boolean closed;
    private Thread handler;

    GuardedCall(ServerCall<ReqT, RespT> call) {
        super(call);
    }

    /**
     * The call's request arrived and it holds slots now, which {@code release} gives back when it ends; false
     * (and nothing held) when it was closed meanwhile, and the caller gives them back itself.
     */
    synchronized boolean admit(Runnable release) {
        if (closed) {
            return false;
        }
        onClose = release;
        admitted = true;
        return true;
    }

    /** Whether the request arrived and the call holds its slots. */
    synchronized boolean admitted() {
        return admitted;
    }

    @Override
    public synchronized void sendHeaders(Metadata headers) {
        if (!closed) {
            super.sendHeaders(headers);
        }
    }

    @Override
    public synchronized void sendMessage(RespT message) {
        if (!closed) {
            super.sendMessage(message);
        }
    }

    @Override
    public synchronized void request(int numMessages) {
        if (!closed) {
            super.request(numMessages);
        }
    }

    @Override
    public synchronized boolean isReady() {
        return !closed && super.isReady();
    }

    @Override
    public void close(Status status, Metadata trailers) {
        closeIfOpen(status, trailers, false);
    }

    /** Closes unless closed already; {@code interrupt}: stop the handler if it is still running. */
    boolean closeIfOpen(Status status, Metadata trailers, boolean interrupt) {
        synchronized (this) {
            if (closed) {
                return false;
            }
            closed = true;
            if (interrupt && handler != null && handler != Thread.currentThread()) {
                handler.interrupt();
            }
            // The slots go back before the status is sent: a client that sends its next call the moment it reads
            // this answer must find its slot free. Given back after, the next call now and then arrived first
            // and was refused as one too many (UnknownIdLogIT, 4 clients on a limit of 4, at load 10).
            onClose.run();
            super.close(status, trailers);
        }
        return true;
    }

    /** The call ended without a close of ours (cancelled by the client, or completed): give the slots back. */
    void ended() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        onClose.run();
    }

    synchronized boolean closed() {
        return closed;
    }

    /** The current thread runs the handler now ({@code true}) or has left it. */
    synchronized void running(boolean now) {
        handler = now ? Thread.currentThread() : null;
        if (!now) {
            Thread.interrupted();       // an interrupt meant for the handler must not reach the next task
        }
    }
}
