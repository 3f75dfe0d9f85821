// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.wire.AsyncEventResponse;
import io.rdmanode.freeflow.internal.wire.Errno;
import io.rdmanode.freeflow.internal.wire.Wire;
import io.rdmanode.freeflow.internal.wire.WireException;
import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;

/**
 * Async events (ibv_get_async_event's) re-addressed to the tenant that owns the object: a QP, CQ or SRQ event goes to
 * its tenant only, named by that tenant's handle; a port or device event goes to every tenant (they all use port 1 of
 * the one device). A tenant has events queued only once it has asked for its async fd (FFR_GET_ASYNC_FD): an eventfd
 * in semaphore mode counting what is queued, which the client polls, then takes each event with
 * FFR_GET_ASYNC_EVENT. At most {@link #MAX_QUEUED} wait per tenant; more are dropped and counted (a client that never
 * reads them must not grow the router's heap). Guarded by the router's monitor.
 */
final class AsyncEvents {
    static final int MAX_QUEUED = 256;
    // enum ibv_event_type (infiniband/verbs.h)
    static final int CQ_ERR = 0;
    static final int QP_FATAL = 1;
    static final int QP_REQ_ERR = 2;
    static final int QP_ACCESS_ERR = 3;
    static final int PATH_MIG_ERR = 7;
    static final int DEVICE_FATAL = 8;
    static final int PORT_ACTIVE = 9;
    static final int PORT_ERR = 10;
    static final int SRQ_ERR = 14;
    static final int SRQ_LIMIT_REACHED = 15;
    static final int QP_LAST_WQE_REACHED = 16;
    static final int GID_CHANGE = 18;

    private final Router lock;
    private final RouterStats stats;

    AsyncEvents(Router lock, RouterStats stats) {
        this.lock = lock;
        this.stats = stats;
    }

    /** Which object an event of this type names (the kernel's element): a QP, a CQ, an SRQ, else a port. */
    enum Element { QP, CQ, SRQ, PORT }

    static Element element(int type) {
        return switch (type) {
            case CQ_ERR -> Element.CQ;
            case SRQ_ERR, SRQ_LIMIT_REACHED -> Element.SRQ;
            case 1, 2, 3, 4, 5, 6, 7, QP_LAST_WQE_REACHED -> Element.QP;
            default -> Element.PORT;
        };
    }

    /** The tenant's async eventfd, made on first ask; the caller passes it over SCM_RIGHTS. */
    int fd(Tenant t) {
        synchronized (lock) {
            Router.live(t);
            if (t.asyncFd < 0) {
                int fd;
                try {
                    fd = Posix.libc().eventfd(0, Posix.EFD_CLOEXEC | Posix.EFD_NONBLOCK | Posix.EFD_SEMAPHORE);
                } catch (PosixException e) {
                    throw new WireException(Errno.EMFILE, "async eventfd for " + t.id() + ": " + e.getMessage());
                }
                if (fd >= Wire.MAP_SIZE) {
                    Posix.libc().close(fd);
                    throw new WireException(Errno.ENOMEM, "async fd " + fd + " beyond the client's table");
                }
                t.asyncFd = fd;
            }
            return t.asyncFd;
        }
    }

    /** The tenant's oldest event and one count off its eventfd, or {@link AsyncEventResponse#none()}. */
    AsyncEventResponse next(Tenant t) {
        synchronized (lock) {
            AsyncEventResponse e = t.asyncEvents.poll();
            if (e == null) {
                return AsyncEventResponse.none();
            }
            try {
                Posix.libc().read(t.asyncFd, new byte[8], 8);
            } catch (PosixException ex) {
                // EAGAIN: the count was taken already; the queue is the authority
            }
            return e;
        }
    }

    /**
     * An event for the tenant that owns its object ({@code owner}: the router's QP, CQ or SRQ, null for a port event
     * or an object the transport did not know); an object destroyed meanwhile gets nothing (its handle may already
     * name a new one). QP_FATAL, QP_REQ_ERR and QP_ACCESS_ERR also put the QP in ERR (the device moved it there);
     * SRQ_LIMIT_REACHED disarms the limit. A port or device event goes to every tenant. Lock held.
     */
    void deliver(int type, Object owner, int port, Iterable<Tenant> all) {
        if (owner instanceof QueuePair qp) {
            if (qp.destroyed || qp.tenant.qps.get(qp.handle) != qp) {
                return;
            }
            if (type == QP_FATAL || type == QP_REQ_ERR || type == QP_ACCESS_ERR) {
                qp.state = QueuePair.ERR;
            }
            post(qp.tenant, qp.handle, type);
        } else if (owner instanceof SharedReceiveQueue srq) {
            if (srq.tenant.srqs.get(srq.handle) != srq) {
                return;
            }
            if (type == SRQ_LIMIT_REACHED) {
                srq.limit = 0;
            }
            post(srq.tenant, srq.handle, type);
        } else if (owner instanceof CompletionQueue cq) {
            if (cq.tenant.cqs.get(cq.handle) == cq) {
                post(cq.tenant, cq.handle, type);
            }
        } else if (element(type) == Element.PORT) {
            broadcast(all, port, type);
        }
    }

    /** An event of a QP, CQ or SRQ for its owner (lock held); the object must still be the tenant's. */
    private void post(Tenant t, int handle, int type) {
        queue(t, new AsyncEventResponse(Integer.toUnsignedLong(handle), type, 0));
    }

    /** A port (or device) event, for every tenant (lock held). */
    private void broadcast(Iterable<Tenant> all, int port, int type) {
        for (Tenant t : all) {
            queue(t, new AsyncEventResponse(port, type, 0));
        }
    }

    private void queue(Tenant t, AsyncEventResponse e) {
        if (t.gone || t.asyncFd < 0) {
            return;
        }
        if (t.asyncEvents.size() >= MAX_QUEUED) {
            stats.asyncEventsDropped.increment();
            return;
        }
        t.asyncEvents.add(e);
        stats.asyncEvents.increment();
        try {
            Posix.libc().write(t.asyncFd, new byte[] {1, 0, 0, 0, 0, 0, 0, 0}, 8);
        } catch (PosixException ex) {
            // an eventfd's counter does not overflow at 256; nothing else can fail here
        }
    }

    /** The tenant is reclaimed: its queue and fd go (lock held). */
    void close(Tenant t) {
        t.asyncEvents.clear();
        if (t.asyncFd >= 0) {
            Posix.libc().close(t.asyncFd);
            t.asyncFd = -1;
        }
    }
}
