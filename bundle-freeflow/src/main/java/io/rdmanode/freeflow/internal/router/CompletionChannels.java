// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.wire.AckCqEventRequest;
import io.rdmanode.freeflow.internal.wire.CqEventResponse;
import io.rdmanode.freeflow.internal.wire.Errno;
import io.rdmanode.freeflow.internal.wire.ReqNotifyCqRequest;
import io.rdmanode.freeflow.internal.wire.Wire;
import io.rdmanode.freeflow.internal.wire.WireException;
import io.rdmanode.posix.Posix;
import io.rdmanode.posix.PosixException;
import java.io.IOException;

/**
 * Completion channels and CQ events: a channel is an eventfd (semaphore mode) the client waits on, plus the queue
 * of CQ handles that fired, which GET_CQ_EVENT takes from. A transport reports every completion through
 * {@link #completionAdded}; an armed CQ with a channel then fires one event. A GET_CQ_EVENT with no event queued
 * parks as a {@link CqEventWaiter} and is answered when one comes: no thread blocks for it (a client may wait for
 * hours). Guarded by the router's monitor ({@code lock}).
 */
final class CompletionChannels {
    private final Router lock;

    CompletionChannels(Router lock) {
        this.lock = lock;
    }

    /**
     * Arms the CQ. Arming a CQ that still holds completions fires at once (unless solicited-only), as ConnectX
     * hardware does (the arm doorbell carries the consumer index and the HCA raises an event for CQEs beyond it): the
     * genuine client's C router relies on that, and an application that polls fewer entries than are queued
     * (see Limits#maxCompletionsPerPoll) and then re-arms would otherwise wait for an event that never comes.
     */
    void arm(Tenant t, ReqNotifyCqRequest r) {
        synchronized (lock) {
            CompletionQueue cq = Router.cq(t, r.cqHandle());
            cq.armed = true;
            cq.solicitedOnly = r.solicitedOnly();
            lock.transport.cqArmed(cq);
            if (cq.armed && !r.solicitedOnly() && !cq.entries.isEmpty()) {
                completionAdded(cq);
            }
        }
    }

    CompChannel create(Tenant t) throws IOException {
        synchronized (lock) {
            Router.live(t);
            int cap = lock.limits().maxChannels();
            if (t.channels.size() >= cap) {
                throw lock.refuse(t, Resource.CHANNELS, "completion channels", cap);
            }
            Posix posix = Posix.libc();
            int fd;
            try {
                fd = posix.eventfd(0, Posix.EFD_CLOEXEC | Posix.EFD_NONBLOCK | Posix.EFD_SEMAPHORE);
            } catch (PosixException e) {
                throw new IOException(e.getMessage(), e);
            }
            if (fd >= Wire.MAP_SIZE) {
                posix.close(fd);
                throw new WireException(Errno.ENOMEM, "channel fd " + fd + " beyond the client's table");
            }
            CompChannel ch = new CompChannel(t, fd);
            t.channels.put(fd, ch);
            return ch;
        }
    }

    void destroy(Tenant t, int fd) {
        synchronized (lock) {
            CompChannel ch = get(t, fd);
            if (t.cqs.values().stream().anyMatch(c -> c.channel == ch)) {
                throw new WireException(Errno.EBUSY, "channel " + fd + " still has CQs");
            }
            t.channels.remove(fd);
            ch.closed = true;
            ch.events.clear();
            for (CqEventWaiter w; (w = ch.waiters.poll()) != null; ) {
                if (w.claim()) {
                    w.abandon();
                }
            }
            Posix.libc().close(fd);
        }
    }

    CompChannel get(Tenant t, int fd) {
        synchronized (lock) {
            CompChannel ch = t.channels.get(fd);
            if (ch == null) {
                throw new WireException(Errno.EINVAL, "no completion channel " + fd + " for " + t.id());
            }
            return ch;
        }
    }

    /**
     * The channel's next event (ibv_get_cq_event), or null when none is queued: then {@code waiter} is parked on
     * the channel and gets the next one. An unknown channel is a WireException (EINVAL).
     */
    CqEventResponse next(Tenant t, int fd, CqEventWaiter waiter) {
        synchronized (lock) {
            CompChannel ch = get(t, fd);
            if (ch.events.isEmpty()) {
                ch.waiters.add(waiter);
                return null;
            }
            return take(ch);
        }
    }

    /** Takes the oldest event of ch: one count off its eventfd, the CQ's counters. Lock held, an event queued. */
    private static CqEventResponse take(CompChannel ch) {
        int h = ch.events.poll();
        readEvent(ch.fd);
        CompletionQueue cq = ch.tenant.cqs.get(h);
        return cq == null ? new CqEventResponse(0, 0, 0) : new CqEventResponse(h, cq.compEvents, 0);
    }

    CqEventResponse ack(Tenant t, AckCqEventRequest r) {
        synchronized (lock) {
            CompletionQueue cq = Router.cq(t, r.cqHandle());
            cq.ackedEvents += (int) Math.min(r.nevents(), Integer.MAX_VALUE);
            return new CqEventResponse(cq.handle, cq.compEvents, 0);
        }
    }

    /** Called by the transport, lock held, when a completion lands: an armed CQ with a channel fires one event. */
    void completionAdded(CompletionQueue cq) {
        if (cq.armed && cq.channel != null && !cq.channel.closed) {
            cq.armed = false;
            cq.compEvents++;
            CompChannel ch = cq.channel;
            ch.events.add(cq.handle);
            byte[] one = {1, 0, 0, 0, 0, 0, 0, 0};
            Posix.libc().write(ch.fd, one, 8);
            while (!ch.events.isEmpty() && !ch.waiters.isEmpty()) {
                CqEventWaiter w = ch.waiters.poll();
                if (w.claim()) {
                    w.deliver(take(ch));
                }
            }
        }
    }

    /** Takes one count off the channel's eventfd (semaphore mode); none there (EAGAIN) is not an error. */
    private static void readEvent(int fd) {
        try {
            Posix.libc().read(fd, new byte[8], 8);
        } catch (PosixException e) {
            if (e.errno() != io.rdmanode.posix.Errno.EAGAIN) {
                throw e;
            }
        }
    }
}
