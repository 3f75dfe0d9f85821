// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.agent.LogText;
import io.rdmanode.freeflow.internal.posix.UnixConnection;
import io.rdmanode.freeflow.internal.rdmacm.CmChannel;
import io.rdmanode.freeflow.internal.rdmacm.CmEventWaiter;
import io.rdmanode.freeflow.internal.rdmacm.RdmaCm;
import io.rdmanode.freeflow.internal.wire.Errno;
import io.rdmanode.freeflow.internal.wire.Func;
import io.rdmanode.freeflow.internal.wire.FuncSpec;
import io.rdmanode.freeflow.internal.wire.Wire;
import io.rdmanode.freeflow.internal.wire.WireException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CM_* requests, between the {@link Dispatcher} and the router's {@link RdmaCm} (the verbs transport only:
 * with the software transport there is no kernel rdma_cm to replay on, and every CM_* answers EOPNOTSUPP).
 * Tenants are the owners the CM service checks channels against; a CONNECT or ACCEPT may name only the tenant's
 * own QPs.
 */
final class CmRequests {
    private static final Logger LOG = LoggerFactory.getLogger(CmRequests.class);

    private CmRequests() {
    }

    static boolean handles(int func) {
        return func >= Func.CM_CREATE_EVENT_CHANNEL && func <= Func.CM_DISCONNECT;
    }

    private static RdmaCm cm(Router router, FuncSpec spec) {
        RdmaCm cm = router.cm();
        if (cm == null) {
            throw new WireException(Errno.EOPNOTSUPP, spec.name() + ": rdma_cm needs freeflow.transport = verbs");
        }
        return cm;
    }

    /** Every CM_* but a parked GET_EVENT: the answer of the function's size. */
    static ByteBuffer execute(Router router, UnixConnection c, Tenant t, FuncSpec spec, ByteBuffer b)
            throws IOException {
        RdmaCm cm = cm(router, spec);
        switch (spec.id()) {
            case Func.CM_CREATE_EVENT_CHANNEL -> {
                synchronized (router) {
                    Router.live(t);
                }
                CmChannel ch = cm.createChannel(t);
                c.sendFd(ch.eventFd());                 // the descriptor first, then {ret_errno, ec.fd}
                ByteBuffer rsp = Wire.allocate(spec.response().size());
                rsp.putInt(4, ch.number());
                LOG.debug("freeflow {} CM_CREATE_EVENT_CHANNEL: channel {}", t.id(), ch.number());
                return rsp;
            }
            case Func.CM_DESTROY_EVENT_CHANNEL -> {
                cm.destroyChannel(t, b.getInt(0));
                return Wire.allocate(spec.response().size());
            }
            case Func.CM_GET_EVENT -> throw new WireException(Errno.EINVAL, "CM_GET_EVENT body of "
                    + b.capacity() + " bytes, 24 expected");
            default -> {
                ByteBuffer rsp = cm.execute(t, qpn -> router.ownsQpn(t, qpn), spec.id(), b, spec.response().size());
                LOG.debug("freeflow {} {} on channel {}: done", t.id(), spec.name(), b.getInt(0));
                return rsp;
            }
        }
    }

    /**
     * CM_GET_EVENT: the channel's next event now, or parked until one comes. A channel that is not the tenant's
     * closes the connection with the request unread, as GET_CQ_EVENT does: the genuine client's read then fails
     * (ECONNRESET) where a zeroed event would make it ask again at once, for ever.
     */
    static Dispatcher.Outcome getEvent(Router router, ControlServer server, ControlConnection cc, Tenant t,
                                       ByteBuffer body) {
        synchronized (router) {
            t.requests++;
        }
        Parked waiter = new Parked(server, cc);
        ByteBuffer now;
        try {
            now = router.cm().nextEvent(t, body.getInt(0), waiter);
        } catch (WireException e) {
            router.stats().controlErrors.increment();
            synchronized (router) {
                t.errors++;
            }
            LOG.debug("freeflow {} CM_GET_EVENT: {}; connection reset", t.id(), LogText.escape(e.getMessage()));
            return Dispatcher.Outcome.CLOSE;
        }
        if (now == null) {
            return Dispatcher.Outcome.PARKED;
        }
        waiter.claim();
        return send(cc, now) ? Dispatcher.Outcome.RESUME : Dispatcher.Outcome.CLOSE;
    }

    private static boolean send(ControlConnection cc, ByteBuffer answer) {
        try {
            if (cc.bodyUnread) {
                cc.conn.skip(cc.body.capacity());
                cc.bodyUnread = false;
            }
            cc.conn.write(answer);
            return true;
        } catch (IOException e) {
            LOG.debug("freeflow connection of pid {} ended: {}", cc.pid(), LogText.escape(e.getMessage()));
            return false;
        }
    }

    /** A CM_GET_EVENT parked on its channel: a worker writes the answer when the event comes. */
    private static final class Parked implements CmEventWaiter {
        private final ControlServer server;
        private final ControlConnection cc;
        private final AtomicBoolean claimed = new AtomicBoolean();

        Parked(ControlServer server, ControlConnection cc) {
            this.server = server;
            this.cc = cc;
        }

        @Override
        public boolean claim() {
            return !cc.closed() && claimed.compareAndSet(false, true);
        }

        @Override
        public void deliver(ByteBuffer answer) {
            server.answerLater(cc, () -> {
                if (send(cc, answer)) {
                    server.resume(cc);
                } else {
                    server.close(cc);
                }
            });
        }

        @Override
        public void abandon() {
            server.close(cc);
        }
    }
}
