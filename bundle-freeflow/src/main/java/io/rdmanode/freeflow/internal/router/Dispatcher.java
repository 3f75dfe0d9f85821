// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.agent.LogText;
import io.rdmanode.freeflow.internal.posix.UnixConnection;
import io.rdmanode.freeflow.internal.wire.AckCqEventRequest;
import io.rdmanode.freeflow.internal.wire.CompChannelResponse;
import io.rdmanode.freeflow.internal.wire.CqEventResponse;
import io.rdmanode.freeflow.internal.wire.CreateCqRequest;
import io.rdmanode.freeflow.internal.wire.CreateQpRequest;
import io.rdmanode.freeflow.internal.wire.CreateAhRequest;
import io.rdmanode.freeflow.internal.wire.CreateSrqRequest;
import io.rdmanode.freeflow.internal.wire.DeviceAttrResponse;
import io.rdmanode.freeflow.internal.wire.Errno;
import io.rdmanode.freeflow.internal.wire.ErrorResponse;
import io.rdmanode.freeflow.internal.wire.ExpQueryDevResponse;
import io.rdmanode.freeflow.internal.wire.FdRequest;
import io.rdmanode.freeflow.internal.wire.Func;
import io.rdmanode.freeflow.internal.wire.FuncSpec;
import io.rdmanode.freeflow.internal.wire.GetContextResponse;
import io.rdmanode.freeflow.internal.wire.HandleRequest;
import io.rdmanode.freeflow.internal.wire.LayoutTable;
import io.rdmanode.freeflow.internal.wire.ModifyQpRequest;
import io.rdmanode.freeflow.internal.wire.ModifySrqRequest;
import io.rdmanode.freeflow.internal.wire.ModifyQpResponse;
import io.rdmanode.freeflow.internal.wire.PollCqRequest;
import io.rdmanode.freeflow.internal.wire.PortAttrResponse;
import io.rdmanode.freeflow.internal.wire.PostRequest;
import io.rdmanode.freeflow.internal.wire.PostResponse;
import io.rdmanode.freeflow.internal.wire.QueryPortRequest;
import io.rdmanode.freeflow.internal.wire.QueryQpRequest;
import io.rdmanode.freeflow.internal.wire.QueryQpResponse;
import io.rdmanode.freeflow.internal.wire.RegMrMappingRequest;
import io.rdmanode.freeflow.internal.wire.RegMrRequest;
import io.rdmanode.freeflow.internal.wire.ReqNotifyCqRequest;
import io.rdmanode.freeflow.internal.wire.RequestHeader;
import io.rdmanode.freeflow.internal.wire.RetResponse;
import io.rdmanode.freeflow.internal.wire.Wire;
import io.rdmanode.freeflow.internal.wire.WireException;
import io.rdmanode.freeflow.internal.wire.WorkCompletion;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes one complete control request (read by the {@link ControlLoop}) and answers it. Every request gets an
 * answer of the size the client waits for, errors included (the genuine client spins forever on a missing one);
 * only a request whose framing cannot be trusted (unknown function, absurd size) gets a 4-byte EINVAL and the
 * connection closed. GET_CQ_EVENT with no event queued parks on its channel ({@link Outcome#PARKED}); on an
 * unknown channel the connection is closed with the request unread, which the client's read sees as ECONNRESET.
 */
final class Dispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
    /** Largest body of any request: a slow-path post fills at most the 1 MiB a mailbox holds. */
    static final int MAX_BODY = 1 << 20;

    /** What becomes of the connection after a request. */
    enum Outcome { RESUME, CLOSE, PARKED }

    private final Router router;
    private final ControlServer server;
    private final LayoutTable table = LayoutTable.standard();

    Dispatcher(Router router, ControlServer server) {
        this.router = router;
        this.server = server;
    }

    Outcome handle(ControlConnection cc) {
        UnixConnection c = cc.conn;
        RequestHeader h = cc.request;
        FuncSpec spec = table.func(h.func());
        try {
            if (spec == null || h.bodySize() > MAX_BODY) {
                router.stats().controlErrors.increment();
                LOG.debug("freeflow pid {}: refused function {} with a {}-byte body", c.peer().pid(), h.func(), h.bodySize());
                c.write(new RetResponse(Errno.EINVAL).encode());
                return Outcome.CLOSE;
            }
            ByteBuffer body = cc.body.clear();
            if (cc.refused) {
                return refuse(cc, spec);
            }
            Tenant t = router.tenant(c.peer(), h.clientId());
            router.stats().controlRequests.increment();
            if (spec.id() == Func.GET_CQ_EVENT && body.capacity() == 4) {
                return getCqEvent(cc, t, body);
            }
            if (spec.id() == Func.CM_GET_EVENT && body.capacity() == 24 && router.cm() != null) {
                return CmRequests.getEvent(router, server, cc, t, body);
            }
            if (cc.bodyUnread) {
                c.skip(body.capacity());                // peeked for a channel wait this router does not serve
                cc.bodyUnread = false;
            }
            answer(c, t, spec, body);
            return Func.socketCall(spec.id()) ? Outcome.CLOSE : Outcome.RESUME;
        } catch (InternalError e) {
            if (!ShmFaults.isFault(e)) {
                throw e;
            }
            // Delivered here, it may come from an earlier request this worker ran (ShmFaults): the tenants are
            // found by their files, and this connection is closed (its client sees its call fail, and may retry).
            router.faultInTenantMemory(e, "request " + h.func() + " of pid " + c.peer().pid());
            return Outcome.CLOSE;
        } catch (IOException e) {
            LOG.debug("freeflow connection of pid {} ended: {}", c.peer().pid(), LogText.escape(e.getMessage()));
            return Outcome.CLOSE;
        } catch (RuntimeException e) {
            LOG.error("freeflow request {} of pid {} failed", h.func(), c.peer().pid(), e);
            return Outcome.CLOSE;
        }
    }

    /** Over its tenant's connection cap: EAGAIN in the answer's errno field where it has one, then closed. */
    private Outcome refuse(ControlConnection cc, FuncSpec spec) throws IOException {
        router.stats().controlErrors.increment();
        if (spec.id() == Func.GET_CQ_EVENT) {
            return Outcome.CLOSE;                       // unread body: the client's read fails with ECONNRESET
        }
        if (Func.passesFdFirst(spec.id())) {
            cc.conn.sendFd(-1);
        }
        cc.conn.write(spec.id() == Func.POLL_CQ ? Wire.allocate(4) : ErrorResponse.of(spec, Resource.CONNECTIONS.errno()));
        return Outcome.CLOSE;
    }

    /**
     * The next event of the channel now, or parked until one comes. An unknown channel (never created, destroyed,
     * or refused at creation: the genuine client then asks for fd -1) closes the connection with the request
     * unread: the client's read fails (ECONNRESET), where 12 zero bytes made the genuine client dereference a NULL
     * CQ, and an end of stream would make it spin on read() for ever.
     */
    private Outcome getCqEvent(ControlConnection cc, Tenant t, ByteBuffer body) throws IOException {
        int fd = body.getInt(0);
        synchronized (router) {
            t.requests++;
        }
        ParkedEvent waiter = new ParkedEvent(cc);
        CqEventResponse now;
        try {
            now = router.channels().next(t, fd, waiter);
        } catch (WireException e) {
            router.stats().controlErrors.increment();
            synchronized (router) {
                t.errors++;
            }
            LOG.debug("freeflow {} GET_CQ_EVENT: {}; connection reset", t.id(), LogText.escape(e.getMessage()));
            return Outcome.CLOSE;
        }
        if (now == null) {
            return Outcome.PARKED;
        }
        waiter.claim();
        return send(cc, now) ? Outcome.RESUME : Outcome.CLOSE;
    }

    /** Takes the request's body off the socket if it was only peeked, then writes the event. */
    private static boolean send(ControlConnection cc, CqEventResponse event) {
        try {
            if (cc.bodyUnread) {
                cc.conn.skip(cc.body.capacity());
                cc.bodyUnread = false;
            }
            cc.conn.write(event.encode());
            return true;
        } catch (IOException e) {
            LOG.debug("freeflow connection of pid {} ended: {}", cc.pid(), LogText.escape(e.getMessage()));
            return false;
        }
    }

    /** A GET_CQ_EVENT parked on its channel: the answer is written by a worker when the event comes. */
    private final class ParkedEvent implements CqEventWaiter {
        private final ControlConnection cc;
        private final AtomicBoolean claimed = new AtomicBoolean();

        ParkedEvent(ControlConnection cc) {
            this.cc = cc;
        }

        @Override
        public boolean claim() {
            return !cc.closed() && claimed.compareAndSet(false, true);
        }

        @Override
        public void deliver(CqEventResponse event) {
            server.answerLater(cc, () -> {
                if (send(cc, event)) {
                    server.resume(cc);
                } else {
                    server.close(cc);
                }
            });
        }

        @Override
        public void abandon() {
            server.close(cc);                           // body unread: the client's read fails with ECONNRESET
        }
    }

    /** Answers one request. */
    private void answer(UnixConnection c, Tenant t, FuncSpec spec, ByteBuffer body) throws IOException {
        ByteBuffer rsp;
        try {
            if (spec.requestSize() >= 0 && body.capacity() != spec.requestSize()) {
                throw new WireException(Errno.EINVAL, spec.name() + " body of " + body.capacity() + " bytes, "
                        + spec.requestSize() + " expected");
            }
            synchronized (router) {
                t.requests++;
            }
            rsp = execute(c, t, spec, body);
        } catch (WireException e) {
            router.stats().controlErrors.increment();
            synchronized (router) {
                t.errors++;
            }
            LOG.debug("freeflow {} {}: {} (errno {})", t.id(), spec.name(), LogText.escape(e.getMessage()), e.errno());
            rsp = spec.id() == Func.POLL_CQ ? Wire.allocate(4) : ErrorResponse.of(spec, e.errno());
            if (Func.passesFdFirst(spec.id())) {
                c.sendFd(-1);
            }
        }
        c.write(rsp);
    }

    private ByteBuffer execute(UnixConnection c, Tenant t, FuncSpec spec, ByteBuffer b) throws IOException {
        return switch (spec.id()) {
            case Func.GET_CONTEXT -> new GetContextResponse(-1, 1).encode();
            case Func.QUERY_DEV -> new DeviceAttrResponse(router.device()).encode();
            case Func.EXP_QUERY_DEV -> new ExpQueryDevResponse(router.device()).encode();
            case Func.QUERY_PORT -> {
                int port = QueryPortRequest.decode(b).portNum();
                if (port != 1) {
                    throw new WireException(Errno.EINVAL, "port " + port + ": the router has port 1 only");
                }
                synchronized (router) {
                    yield router.transport.port().encode();
                }
            }
            case Func.ALLOC_PD -> router.allocPd(t).encode();
            case Func.DEALLOC_PD -> ok(() -> router.deallocPd(t, HandleRequest.decode(b, "PD").handle()));
            case Func.CREATE_CQ -> router.createCq(t, CreateCqRequest.decode(b)).encode();
            case Func.DESTROY_CQ -> ok(() -> router.destroyCq(t, HandleRequest.decode(b, "CQ").handle()));
            case Func.REQ_NOTIFY_CQ -> ok(() -> router.channels().arm(t, ReqNotifyCqRequest.decode(b)));
            case Func.CREATE_QP -> router.createQp(t, CreateQpRequest.decode(b)).encode();
            case Func.MODIFY_QP -> {
                ModifyQpRequest r = ModifyQpRequest.decode(b);
                int routed = router.routeGidIndex(t, r);        // before the router's lock: rdma_cm has its own
                synchronized (router) {
                    QueuePair qp = Router.qp(t, r.handle());
                    if ((r.attrMask() & QpTransitions.AV) != 0) {
                        qp.routeGidIndex = routed;
                    }
                    router.transport.modify(qp, r);
                }
                yield new ModifyQpResponse(0, r.handle()).encode();
            }
            case Func.QUERY_QP -> {
                QueryQpRequest r = QueryQpRequest.decode(b);
                synchronized (router) {
                    yield new QueryQpResponse(0, router.transport.query(Router.qp(t, r.handle()))).encode();
                }
            }
            case Func.DESTROY_QP -> ok(() -> router.destroyQp(t, HandleRequest.decode(b, "QP").handle()));
            case Func.REG_MR -> router.regMr(t, RegMrRequest.decode(b)).encode();
            case Func.REG_MR_MAPPING -> ok(() -> router.regMrMapping(t, RegMrMappingRequest.decode(b))
                    .ifPresent(router::announce));
            case Func.DEREG_MR -> ok(() -> router.deregMr(t, HandleRequest.decode(b, "MR").handle()));
            case Func.POST_SEND, Func.POST_RECV -> {
                PostRequest r = spec.id() == Func.POST_SEND ? PostRequest.decodeSend(b, b.capacity())
                        : PostRequest.decodeRecv(b, b.capacity());
                synchronized (router) {
                    QueuePair qp = Router.qp(t, r.handle());
                    PostResponse p = spec.id() == Func.POST_SEND ? router.transport.postSend(qp, r.sends())
                            : router.transport.postRecv(qp, r.recvs());
                    yield p.encode();
                }
            }
            case Func.CREATE_SRQ -> router.createSrq(t, CreateSrqRequest.decode(b)).encode();
            case Func.CREATE_AH -> router.createAh(t, CreateAhRequest.decode(b)).encode();
            case Func.DESTROY_AH -> ok(() -> router.destroyAh(t, HandleRequest.decode(b, "AH").handle()));
            case Func.MODIFY_SRQ -> ok(() -> router.modifySrq(t, ModifySrqRequest.decode(b)));
            case Func.DESTROY_SRQ -> ok(() -> router.destroySrq(t, HandleRequest.decode(b, "SRQ").handle()));
            case Func.POST_SRQ_RECV -> {
                PostRequest r = PostRequest.decodeRecv(b, b.capacity());
                synchronized (router) {
                    yield router.transport.postSrqRecv(Router.srq(t, r.handle()), r.recvs()).encode();
                }
            }
            case Func.POLL_CQ -> {
                PollCqRequest r = PollCqRequest.decode(b);
                synchronized (router) {
                    CompletionQueue cq = Router.cq(t, r.cqHandle());
                    router.transport.refill(cq, r.ne());
                    int most = Math.min(router.limits().completionsFor(r.ne()), cq.entries.size());
                    ByteBuffer out = Wire.allocate(4 + most * WorkCompletion.SIZE);
                    int n = router.transport.poll(cq, r.ne(), out, 4);
                    out.putInt(0, n * WorkCompletion.SIZE);
                    yield out;
                }
            }
            case Func.CREATE_COMP_CHANNEL -> {
                CompChannel ch = router.channels().create(t);
                // The fd travels first, then the answer with the router's number for it (freeflow.md §2.2).
                c.sendFd(ch.fd);
                yield new CompChannelResponse(ch.fd).encode();
            }
            case Func.DESTROY_COMP_CHANNEL -> ok(() -> router.channels().destroy(t, FdRequest.decode(b).fd()));
            case Func.ACK_CQ_EVENT -> router.channels().ack(t, AckCqEventRequest.decode(b)).encode();
            case Func.FFR_GET_ASYNC_FD -> {
                int fd = router.asyncEvents().fd(t);
                c.sendFd(fd);                           // the client gets its own duplicate, as a channel's
                yield Wire.allocate(8).putInt(0, 0).putInt(4, fd);
            }
            case Func.FFR_GET_ASYNC_EVENT -> router.asyncEvents().next(t).encode();
            default -> {
                if (CmRequests.handles(spec.id())) {
                    yield CmRequests.execute(router, c, t, spec, b);
                }
                throw new WireException(Errno.EOPNOTSUPP, spec.name() + " is not implemented by this router");
            }
        };
    }

    private static ByteBuffer ok(Runnable r) {
        r.run();
        return new RetResponse(0).encode();
    }
}
