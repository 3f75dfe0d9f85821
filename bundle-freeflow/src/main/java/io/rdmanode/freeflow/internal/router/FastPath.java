// SPDX-License-Identifier: Apache-2.0
package io.rdmanode.freeflow.internal.router;

import io.rdmanode.freeflow.internal.wire.Errno;
import io.rdmanode.freeflow.internal.wire.Func;
import io.rdmanode.freeflow.internal.wire.PollCqRequest;
import io.rdmanode.freeflow.internal.wire.PostRequest;
import io.rdmanode.freeflow.internal.wire.PostResponse;
import io.rdmanode.freeflow.internal.wire.RequestHeader;
import io.rdmanode.freeflow.internal.wire.WireException;
import io.rdmanode.freeflow.internal.wire.WorkCompletion;
import java.nio.ByteBuffer;

/**
 * Serves one mailbox request (freeflow.md §2.6): header + body in the request area, {@code rsp_size} + payload in
 * the response area. A QP mailbox takes POST_SEND/POST_RECV for its own QP only, a CQ mailbox POLL_CQ for its own
 * CQ, an SRQ mailbox POST_SRQ_RECV for its own SRQ; anything else is answered with an error (or zero completions), never left unanswered: the client spins
 * without a timeout.
 */
final class FastPath {
    private static final int BODY = Mailbox.REQ + RequestHeader.SIZE;
    private static final int RSP_BODY = Mailbox.RSP + 4;
    private final Router router;

    FastPath(Router router) {
        this.router = router;
    }

    /** A fault in tenant memory caught by the poller: the tenants that truncated their files are reclaimed. */
    void faulted(InternalError e) {
        router.faultInTenantMemory(e, "mailbox poller");
    }

    void serve(Mailbox mb) {
        ByteBuffer buf = mb.buf;
        int func = buf.getInt(Mailbox.REQ + 4);
        long bodySize = buf.getInt(Mailbox.REQ + 8) & 0xffffffffL;
        RouterStats stats = router.stats();
        stats.fastRequests.increment();
        try {
            if (bodySize > Mailbox.AREA - RequestHeader.SIZE) {
                throw new WireException(Errno.EINVAL, "mailbox body of " + bodySize + " bytes");
            }
            // The body is read in place at BODY: decoding checks every count against bodySize, so nothing past the
            // body is read, and no slice is made per request.
            switch (mb.kind) {
                case QP -> post(mb, func, (int) bodySize);
                case CQ -> poll(mb, func, (int) bodySize);
                case SRQ -> postSrq(mb, func, (int) bodySize);
            }
        } catch (WireException e) {
            stats.fastErrors.increment();
            synchronized (router) {
                mb.tenant.errors++;
            }
            org.slf4j.LoggerFactory.getLogger(FastPath.class).debug("mailbox {} {} of {}: {}", mb.kind, mb.handle,
                    mb.tenant.id(), e.getMessage());
            if (mb.kind == Mailbox.Kind.CQ) {
                buf.putInt(Mailbox.RSP, 0);
            } else {
                buf.putInt(Mailbox.RSP, PostResponse.SIZE);
                new PostResponse(e.errno(), 0).encode(buf, RSP_BODY);
            }
        }
        mb.respond();
    }

    private void post(Mailbox mb, int func, int size) {
        if (func != Func.POST_SEND && func != Func.POST_RECV) {
            throw new WireException(Errno.EINVAL, "function " + func + " in a QP mailbox");
        }
        PostRequest req = func == Func.POST_SEND ? PostRequest.decodeSend(mb.buf, BODY, size)
                : PostRequest.decodeRecv(mb.buf, BODY, size);
        if (req.handle() != mb.handle) {
            throw new WireException(Errno.EINVAL, "QP " + req.handle() + " posted through the mailbox of QP " + mb.handle);
        }
        PostResponse rsp;
        synchronized (router) {
            QueuePair qp = mb.qp;
            if (qp == null) {
                throw new WireException(Errno.EINVAL, "QP " + mb.handle + " destroyed");
            }
            mb.tenant.requests++;
            rsp = func == Func.POST_SEND ? router.transport.postSend(qp, req.sends()) : router.transport.postRecv(qp, req.recvs());
        }
        mb.buf.putInt(Mailbox.RSP, PostResponse.SIZE);
        rsp.encode(mb.buf, RSP_BODY);
    }

    private void postSrq(Mailbox mb, int func, int size) {
        if (func != Func.POST_SRQ_RECV) {
            throw new WireException(Errno.EINVAL, "function " + func + " in an SRQ mailbox");
        }
        PostRequest req = PostRequest.decodeRecv(mb.buf, BODY, size);
        if (req.handle() != mb.handle) {
            throw new WireException(Errno.EINVAL, "SRQ " + req.handle() + " posted through the mailbox of SRQ " + mb.handle);
        }
        PostResponse rsp;
        synchronized (router) {
            SharedReceiveQueue srq = mb.tenant.srqs.get(mb.handle);
            if (srq == null || srq.mailbox != mb) {
                throw new WireException(Errno.EINVAL, "SRQ " + mb.handle + " destroyed");
            }
            mb.tenant.requests++;
            rsp = router.transport.postSrqRecv(srq, req.recvs());
        }
        mb.buf.putInt(Mailbox.RSP, PostResponse.SIZE);
        rsp.encode(mb.buf, RSP_BODY);
    }

    private void poll(Mailbox mb, int func, int size) {
        if (func != Func.POLL_CQ || size != 8) {
            throw new WireException(Errno.EINVAL, "function " + func + " (" + size + " bytes) in a CQ mailbox");
        }
        // Read in place, no request object: a client's poll loop is most of the fast path's requests.
        int ne = PollCqRequest.ne(mb.buf, BODY);
        int cqHandle = PollCqRequest.cqHandle(mb.buf, BODY);
        if (cqHandle != mb.handle) {
            throw new WireException(Errno.EINVAL, "CQ " + cqHandle + " polled through the mailbox of CQ " + mb.handle);
        }
        int n;
        synchronized (router) {
            CompletionQueue cq = mb.cq;
            if (cq == null) {
                throw new WireException(Errno.EINVAL, "CQ " + mb.handle + " destroyed");
            }
            mb.tenant.requests++;
            router.transport.refill(cq, ne);
            n = cq.entries.isEmpty() ? 0 : router.transport.poll(cq, ne, mb.buf, RSP_BODY);
        }
        mb.buf.putInt(Mailbox.RSP, n * WorkCompletion.SIZE);
    }
}
